import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy, LOOKUP_DEADLINE_MS } from '../../src/net/policy.js';
import { createSystemLookup } from '../../src/net/system-lookup.js';
import { type DnsServer, startDnsServer } from '../helpers/dns-server.js';

// Every lookup here goes to the loopback server below (servers: …) or to the temp hosts file: never
// to the machine's resolver.
let dnsServer: DnsServer;
let dir: string;
let hostsFile: string;
let resolvConf: string;

beforeAll(async () => {
  dnsServer = await startDnsServer({
    answers: { 'public.example': '93.184.215.14', 'intranet.corp.test': '93.184.215.15', 'inner.example': '10.0.0.7' },
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-lookup-'));
  hostsFile = path.join(dir, 'hosts');
  resolvConf = path.join(dir, 'resolv.conf');
  fs.writeFileSync(
    hostsFile,
    '127.0.0.1 localhost\n# a comment line\n93.184.215.20 Hooks.Example.test alias.example.test # trailing\n',
  );
  fs.writeFileSync(resolvConf, 'nameserver 127.0.0.1\nsearch corp.test\noptions ndots:1\n');
});
afterAll(async () => {
  await dnsServer.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const lookupHere = () => createSystemLookup({ hostsFile, resolvConf, servers: [`${dnsServer.host}:${dnsServer.port}`] });

describe('system lookup: /etc/hosts, then DNS through c-ares', () => {
  it('answers a name in the hosts file without asking DNS, any case, aliases too', async () => {
    const lookup = lookupHere();
    const before = dnsServer.queries.length;
    expect(await lookup('hooks.example.test')).toEqual([{ address: '93.184.215.20', family: 4 }]);
    expect(await lookup('ALIAS.example.test.')).toEqual([{ address: '93.184.215.20', family: 4 }]);
    expect(dnsServer.queries.length).toBe(before);
  });

  it('sees an edit of the hosts file on the next lookup', async () => {
    const lookup = lookupHere();
    fs.writeFileSync(hostsFile, '93.184.215.21 hooks.example.test\n2606:4700::1 hooks.example.test\n');
    expect(await lookup('hooks.example.test')).toEqual([
      { address: '93.184.215.21', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
  });

  it('answers a name under .invalid as not found at once, asking no server (RFC 6761)', async () => {
    const lookup = lookupHere();
    const before = dnsServer.queries.length;
    await expect(lookup('cdn7.unreachable.invalid')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(lookup('Nowhere.INVALID.')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(dnsServer.queries.length).toBe(before);
  });

  it('asks DNS for other names and applies the search list to a single-label name', async () => {
    const lookup = lookupHere();
    expect(await lookup('public.example')).toEqual([{ address: '93.184.215.14', family: 4 }]);
    expect(await lookup('intranet')).toEqual([{ address: '93.184.215.15', family: 4 }]);
    expect(dnsServer.queries).toContain('intranet.corp.test');
  });
});

describe('egress policy: every lookup has its own deadline, and stalled ones starve nothing', () => {
  it(`gives up on a name whose resolver never answers after ${LOOKUP_DEADLINE_MS} ms, as "try again"`, async () => {
    const policy = createEgressPolicy({ allow: [], lookup: lookupHere() });
    const started = performance.now();
    const err = (await policy.resolve('stalled.example').catch((e: unknown) => e)) as NodeJS.ErrnoException;
    const took = performance.now() - started;
    expect(err.code).toBe('EAI_AGAIN');
    expect(err.message).toBe(`host stalled.example did not resolve within ${LOOKUP_DEADLINE_MS} ms`);
    expect(dnsServer.queries).toContain('stalled.example');
    expect(took).toBeGreaterThanOrEqual(LOOKUP_DEADLINE_MS - 5);
    // The deadline is a timer: late only by how long this loaded machine takes to run it.
    expect(took).toBeLessThan(LOOKUP_DEADLINE_MS + 1000);
  });

  it('answers hosts-file and DNS names while 50 stalled lookups are pending', async () => {
    const policy = createEgressPolicy({ allow: [], lookup: lookupHere() });
    fs.writeFileSync(hostsFile, '93.184.215.22 hooks.example.test\n');
    const stalled = Array.from({ length: 50 }, (_, i) => policy.resolve(`stalled-${i}.example`).catch((e: unknown) => e));
    // Every stalled name is waiting on the server before the measured lookups start.
    while (new Set(dnsServer.queries.filter((q) => q.startsWith('stalled-'))).size < 50)
      await new Promise((r) => setTimeout(r, 5));
    const started = performance.now();
    const [fromHosts, fromDns] = await Promise.all([policy.resolve('hooks.example.test'), policy.resolve('public.example')]);
    const took = performance.now() - started;
    expect(fromHosts).toEqual({ address: '93.184.215.22', family: 4 });
    expect(fromDns).toEqual({ address: '93.184.215.14', family: 4 });
    // Answered before any stalled lookup's deadline ends it: they held nothing these two needed.
    expect(took).toBeLessThan(LOOKUP_DEADLINE_MS);
    for (const outcome of await Promise.all(stalled)) expect((outcome as NodeJS.ErrnoException).code).toBe('EAI_AGAIN');
  });

  it('still refuses a name that resolves to a private address', async () => {
    const policy = createEgressPolicy({ allow: [], lookup: lookupHere() });
    await expect(policy.resolve('inner.example')).rejects.toThrow('host inner.example resolves to a private address');
  });
});
