import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';

/** The shipped configuration, read as it is: the suites never keep a copy of it. */
export const NGINX_CONF = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/nginx.conf');

/** Whether Debian's nginx is installed (the set-up installs it as root; without it the suites skip loudly). */
export const hasNginx = spawnSync('nginx', ['-v']).status === 0;

/** The public port of each server block in deploy/nginx.conf. */
const PUBLIC_PORTS = { dashboard: 8000, render: 8001, metadata: 8002 } as const;

/** Which instances each upstream block points at, and where each server block listens. */
export interface NginxTemplate {
  upstreams: Record<keyof typeof PUBLIC_PORTS, string[]>;
  listen: Record<keyof typeof PUBLIC_PORTS, number>;
  /** Replaces every `proxy_read_timeout` (the 504 test waits seconds, not 90 s). */
  readTimeoutS?: number;
}

/**
 * The one template step between deploy/nginx.conf and a test: inside each `upstream NAME { … }` block
 * the `server` lines take the given loopback addresses (keeping their parameters: max_fails,
 * fail_timeout), each `listen 800x;` becomes `listen 127.0.0.1:PORT;`, and optionally the read
 * timeouts are shortened. Everything else (routing, hidden paths, error pages, retries) is the file.
 */
export function nginxConfFor(conf: string, t: NginxTemplate): string {
  let out = conf.replace(/upstream (\w+) \{([^}]*)\}/g, (_block, name: string, body: string) => {
    const addresses = t.upstreams[name as keyof typeof PUBLIC_PORTS];
    if (!addresses) throw new Error(`deploy/nginx.conf has an upstream "${name}" the template does not know`);
    const lines = body.split('\n');
    const servers = lines.filter((l) => /^\s*server \S+/.test(l));
    if (servers.length === 0) throw new Error(`upstream ${name} has no server line`);
    const template = servers[servers.length - 1]!;
    const replaced = addresses.map((a) => template.replace(/server \S+?(;|\s)/, `server ${a}$1`));
    const first = lines.indexOf(servers[0]!);
    const kept = lines.filter((l) => !servers.includes(l));
    kept.splice(first, 0, ...replaced);
    return `upstream ${name} {${kept.join('\n')}}`;
  });
  for (const [service, publicPort] of Object.entries(PUBLIC_PORTS)) {
    const listen = `listen ${publicPort};`;
    if (!out.includes(listen)) throw new Error(`deploy/nginx.conf has no "${listen}"`);
    out = out.replace(listen, `listen 127.0.0.1:${t.listen[service as keyof typeof PUBLIC_PORTS]};`);
  }
  if (t.readTimeoutS !== undefined) out = out.replace(/proxy_read_timeout \d+s;/g, `proxy_read_timeout ${t.readTimeoutS}s;`);
  return out;
}

/** A free loopback port (closed again, so nginx can take it). */
export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** nginx in the foreground, with its own prefix, pid and logs in a temporary directory. */
export class Nginx {
  private errors = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly ports: NginxTemplate['listen'],
  ) {
    child.stderr!.on('data', (d) => (this.errors += d));
  }

  /** Starts nginx on the templated configuration and waits until every public port accepts connections. */
  static async start(t: Omit<NginxTemplate, 'listen'>): Promise<Nginx> {
    const listen = { dashboard: await freeLoopbackPort(), render: await freeLoopbackPort(), metadata: await freeLoopbackPort() };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-nginx-'));
    const conf = path.join(dir, 'nginx.conf');
    fs.writeFileSync(conf, nginxConfFor(fs.readFileSync(NGINX_CONF, 'utf8'), { ...t, listen }));
    const child = spawn('nginx', ['-p', dir, '-c', conf, '-g', `daemon off; pid ${dir}/nginx.pid; error_log stderr;`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const nginx = new Nginx(child, dir, listen);
    const until = Date.now() + 10_000;
    for (const port of Object.values(listen)) {
      while (!(await accepts(port))) {
        if (child.exitCode !== null || Date.now() > until) throw new Error(`nginx did not start: ${nginx.errors}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    return nginx;
  }

  /** Base address of a public port. */
  url(service: keyof NginxTemplate['listen']): string {
    return `http://127.0.0.1:${this.ports[service]}`;
  }

  /** Stops nginx and removes its directory. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** A fetch dispatcher whose connections leave from `address` (127.0.0.x), so nginx sees distinct clients. */
export function fromAddress(address: string): Agent {
  return new Agent({ localAddress: address });
}
