/**
 * Name lookups for the egress policy that no tenant can starve: /etc/hosts first (as nsswitch's
 * `hosts: files dns` does), then DNS through c-ares with the servers, search list and ndots of
 * /etc/resolv.conf, read afresh for every lookup so an operator's edit applies at once.
 *
 * Why not dns.lookup: getaddrinfo blocks one of libuv's four pool threads until the resolver answers
 * (glibc waits 5 s per try), so a few stalled names of one account held every thread and another
 * account's lookups, even of /etc/hosts names, queued behind them (a job submit took 29 s). c-ares
 * queries are sockets on the event loop: a thousand stalled ones occupy nothing another lookup needs,
 * and each is cancelled when its caller's deadline passes.
 */
import dns from 'node:dns';
import fs from 'node:fs';
import net from 'node:net';

/** One address of a host, as dns.lookup reports it. */
export interface HostAddress {
  address: string;
  family: 4 | 6;
}

/** Where the lookups read their configuration; tests point them elsewhere. */
export interface SystemLookupOptions {
  hostsFile?: string;
  resolvConf?: string;
  /** DNS servers (`host` or `host:port`) instead of resolv.conf's nameservers. */
  servers?: string[];
}

/** A lookup that ends when `signal` aborts (the policy's deadline). */
export type AbortableLookup = (hostname: string, signal?: AbortSignal) => Promise<HostAddress[]>;

interface HostsTable {
  stamp: string;
  names: Map<string, HostAddress[]>;
}

function parseHosts(text: string): Map<string, HostAddress[]> {
  const names = new Map<string, HostAddress[]>();
  for (const line of text.split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    const family = net.isIP(address ?? '');
    if (family === 0) continue;
    for (const alias of aliases) {
      const name = alias.toLowerCase().replace(/\.$/, '');
      const list = names.get(name) ?? [];
      if (!list.some((a) => a.address === address)) list.push({ address, family: family as 4 | 6 });
      names.set(name, list);
    }
  }
  return names;
}

interface ResolverConfig {
  search: string[];
  ndots: number;
}

function parseResolvConf(text: string): ResolverConfig {
  let search: string[] = [];
  let ndots = 1;
  for (const line of text.split('\n')) {
    const [key, ...values] = line
      .replace(/[#;].*/, '')
      .trim()
      .split(/\s+/);
    // As in glibc, the last `search` or `domain` line wins.
    if (key === 'search' || key === 'domain') search = values.map((v) => v.replace(/\.$/, '')).filter(Boolean);
    if (key === 'options') {
      for (const option of values) if (option.startsWith('ndots:')) ndots = Math.min(15, Number(option.slice(6)) || 0);
    }
  }
  return { search, ndots };
}

function notFound(hostname: string): Error {
  return Object.assign(new Error(`host ${hostname} has no address`), { code: 'ENOTFOUND' });
}

/** Builds the lookup the egress policy uses by default: /etc/hosts, then c-ares DNS. */
export function createSystemLookup(opts: SystemLookupOptions = {}): AbortableLookup {
  const hostsFile = opts.hostsFile ?? '/etc/hosts';
  const resolvConf = opts.resolvConf ?? '/etc/resolv.conf';
  let hosts: HostsTable = { stamp: '', names: new Map() };

  // Re-read when the file changes: a stat per lookup, on the event loop (a pool thread is what we avoid).
  const hostsTable = (): Map<string, HostAddress[]> => {
    let stamp = 'missing';
    try {
      const st = fs.statSync(hostsFile);
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      // No hosts file: every name goes to DNS.
    }
    if (stamp !== hosts.stamp) {
      let text = '';
      try {
        text = fs.readFileSync(hostsFile, 'utf8');
      } catch {
        text = '';
      }
      hosts = { stamp, names: parseHosts(text) };
    }
    return hosts.names;
  };

  const resolverConfig = (): ResolverConfig => {
    try {
      return parseResolvConf(fs.readFileSync(resolvConf, 'utf8'));
    } catch {
      return { search: [], ndots: 1 };
    }
  };

  // Both families at once; one channel per lookup, so cancelling it ends this lookup's queries only.
  const query = async (name: string, signal?: AbortSignal): Promise<HostAddress[]> => {
    const resolver = new dns.promises.Resolver({ timeout: 750, tries: 2 });
    if (opts.servers) resolver.setServers(opts.servers);
    const cancel = (): void => resolver.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
      const found: HostAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
      ];
      if (found.length > 0) return found;
      const failure = [v4, v6].find(
        (r): r is PromiseRejectedResult =>
          r.status === 'rejected' && !['ENODATA', 'ENOTFOUND'].includes((r.reason as NodeJS.ErrnoException).code ?? ''),
      );
      if (!failure) throw notFound(name);
      // A server that timed out, refused or failed: "try again", as getaddrinfo says it (EAI_AGAIN).
      const code = (failure.reason as NodeJS.ErrnoException).code;
      throw Object.assign(new Error(`host ${name} could not be resolved (${code})`), { code: 'EAI_AGAIN' });
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  };

  return async (hostname, signal) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const listed = hostsTable().get(name);
    if (listed) return listed.map((a) => ({ ...a }));
    // RFC 6761: a name under .invalid never resolves, so no server is asked (nor the search list tried).
    if (name === 'invalid' || name.endsWith('.invalid')) throw notFound(name);
    const { search, ndots } = resolverConfig();
    const dots = name.split('.').length - 1;
    // glibc's order: the name as given first when it has ndots dots, else the search list first.
    const suffixed = hostname.endsWith('.') ? [] : search.map((domain) => `${name}.${domain}`);
    const candidates = dots >= ndots ? [name, ...suffixed] : [...suffixed, name];
    let lastError: unknown = notFound(name);
    for (const candidate of candidates) {
      if (signal?.aborted) break;
      try {
        return await query(candidate, signal);
      } catch (err) {
        lastError = err;
        // Only "no such name" moves on to the next candidate; a timeout or a server failure ends the lookup.
        if ((err as NodeJS.ErrnoException).code !== 'ENOTFOUND') break;
      }
    }
    throw lastError;
  };
}
