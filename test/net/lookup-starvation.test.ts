/**
 * One tenant's stalled names cannot slow another's lookups. A real `pageworks serve` runs in its own
 * mount namespace (`unshare -m`) whose /etc/resolv.conf names only a test DNS server on loopback that
 * swallows every query, and whose /etc/hosts lists account B's names. While account A keeps 8 job
 * submits waiting on names that never resolve, B's job submit, metadata fetch and render (whose image
 * is on an /etc/hosts name) are answered as fast as without A. No query leaves this machine's loopback.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPageworks } from '../helpers/cli.js';
import { type DnsServer, startDnsServer } from '../helpers/dns-server.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { instanceEnv } from '../scale/instances.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const canUnshare = isRoot && spawnSync('unshare', ['-m', 'true']).status === 0;
if (!canUnshare) console.warn('\n*** unshare -m is not permitted (needs root): the lookup starvation suite is SKIPPED ***\n');

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe.skipIf(!canUnshare)('lookups: a resolver that never answers for A leaves B as fast as before', () => {
  let dns: DnsServer;
  let dir: string;
  let service: ChildProcess | undefined;
  let output = '';
  let site: http.Server;
  let sitePort = 0;
  const assetHits: number[] = [];
  const hooksReceived: string[] = [];
  let renderUrl = '';
  let metadataUrl = '';
  const keys = { a: '', bRender: '', bMetadata: '' };

  beforeAll(async () => {
    // Port 53 (glibc's resolver knows no other) on a loopback address of its own, so no real resolver is shadowed.
    const octet = () => 1 + Math.floor(Math.random() * 250);
    dns = await startDnsServer({ host: `127.${octet()}.${octet()}.${octet()}`, port: 53 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-starve-'));
    fs.writeFileSync(path.join(dir, 'resolv.conf'), `nameserver ${dns.host}\n`);
    fs.writeFileSync(path.join(dir, 'hosts'), '127.0.0.1 localhost\n127.0.0.1 hooks.b.test site.b.test assets.b.test\n');

    site = http.createServer((req, res) => {
      if (req.url === '/logo.png') {
        assetHits.push(Date.now());
        res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      } else if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<title>B page</title>');
      } else if (req.method === 'POST' && req.url === '/hooks') {
        let body = '';
        req.on('data', (c: Buffer) => {
          body += c.toString();
        });
        req.on('end', () => {
          hooksReceived.push(body);
          res.writeHead(204).end();
        });
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;

    // Two accounts on the store the service opens (the CLI runs outside the namespace; it resolves nothing).
    const data = path.join(dir, 'data');
    for (const email of ['a@example.com', 'b@example.com']) {
      expect(runPageworks(data, ['accounts', 'create', '--email', email]).code).toBe(0);
    }
    const key = (email: string, svc: string) => {
      const res = runPageworks(data, ['keys', 'create', '--email', email, '--service', svc]);
      expect(res.code, res.stderr).toBe(0);
      return res.stdout.trim();
    };
    keys.a = key('a@example.com', 'render');
    keys.bRender = key('b@example.com', 'render');
    keys.bMetadata = key('b@example.com', 'metadata');

    const mountAndRun = 'mount --bind "$1" /etc/resolv.conf && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"';
    service = spawn(
      'unshare',
      [
        '-m',
        '--',
        'sh',
        '-c',
        mountAndRun,
        'sh',
        path.join(dir, 'resolv.conf'),
        path.join(dir, 'hosts'),
        process.execPath,
        ...PAGEWORKS,
        'serve',
        '--services',
        'render,metadata',
      ],
      {
        cwd: ROOT,
        env: instanceEnv({
          PAGEWORKS_DATA_DIR: data,
          RENDER_PORT: '0',
          METADATA_PORT: '0',
          RENDER_CONCURRENCY: '2',
          RENDER_RATE_LIMIT: '1000',
          // B's names point at this test's loopback servers.
          EGRESS_ALLOW: '127.0.0.1/32',
        }),
      },
    );
    service.stdout?.on('data', (d) => (output += d));
    service.stderr?.on('data', (d) => (output += d));
    const until = Date.now() + 90_000;
    for (;;) {
      renderUrl = /render\s+listening on (http:\/\/\S+)/.exec(output)?.[1] ?? '';
      metadataUrl = /metadata\s+listening on (http:\/\/\S+)/.exec(output)?.[1] ?? '';
      if (renderUrl && metadataUrl) break;
      if (service.exitCode !== null || Date.now() > until) throw new Error(`serve did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);

  afterAll(async () => {
    if (service && service.exitCode === null) {
      service.kill('SIGTERM');
      await new Promise((resolve) => {
        const force = setTimeout(() => service?.kill('SIGKILL'), 20_000);
        service?.once('exit', () => resolve(clearTimeout(force)));
      });
    }
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
    await dns?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const submitB = () =>
    fetch(`${renderUrl}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.bRender}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<h1>B invoice</h1>', webhook: { url: `http://hooks.b.test:${sitePort}/hooks` } }),
    });
  const fetchB = () =>
    fetch(`${metadataUrl}/v1/fetch?url=${encodeURIComponent(`http://site.b.test:${sitePort}/page`)}`, {
      headers: { 'x-api-key': keys.bMetadata },
    });
  const renderB = () =>
    fetch(`${renderUrl}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.bRender}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: `<h1>B letter</h1><img src="http://assets.b.test:${sitePort}/logo.png">` }),
    });
  const timed = async (call: () => Promise<Response>): Promise<{ res: Response; ms: number; body: string }> => {
    const started = performance.now();
    const res = await call();
    const body = res.headers.get('content-type')?.includes('json') ? await res.text() : '';
    return { res, ms: performance.now() - started, body };
  };

  it('B: submit 202 and fetch 200 within 1 s, render gets its image, while 8 submits of A wait on DNS', async () => {
    // Once each, unmeasured: the first request of a fresh process loads code that later ones do not.
    expect((await submitB()).status).toBe(202);
    expect((await fetchB()).status).toBe(200);
    expect((await renderB()).status).toBe(200);

    // Account A: 8 submits at all times, each with a webhook on a name the resolver never answers.
    let stop = false;
    let aAnswers = 0;
    const statusesA = new Set<number>();
    const loopA = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const res = await fetch(`${renderUrl}/v1/jobs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.a}`, 'content-type': 'application/json' },
          body: JSON.stringify({ html: '<p>A</p>', webhook: { url: `https://hook-${n}-${i}.a.test/` } }),
        });
        await res.text();
        statusesA.add(res.status);
        aAnswers += 1;
      }
    };
    const queriesBefore = dns.queries.length;
    const loops = Array.from({ length: 8 }, (_, n) => loopA(n));
    try {
      // All 8 are waiting on the DNS server before B starts.
      while (new Set(dns.queries.slice(queriesBefore).map((q) => q.split('.')[0])).size < 8) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const answersBefore = aAnswers;
      const submit = await timed(submitB);
      const meta = await timed(fetchB);
      const hitsBefore = assetHits.length;
      const render = await timed(renderB);
      const aStillWaiting = aAnswers - answersBefore;
      console.info(
        `B under A's load: submit ${submit.ms.toFixed(0)} ms, metadata ${meta.ms.toFixed(0)} ms, render ${render.ms.toFixed(0)} ms (image fetched: ${assetHits.length > hitsBefore}); A answered ${aStillWaiting} submits meanwhile`,
      );

      expect(submit.res.status, submit.body).toBe(202);
      expect(submit.ms).toBeLessThan(1000);
      expect(meta.res.status, meta.body).toBe(200);
      expect(JSON.parse(meta.body).title).toBe('B page');
      expect(meta.ms).toBeLessThan(1000);
      expect(render.res.status, render.body).toBe(200);
      expect(assetHits.length).toBe(hitsBefore + 1);
    } finally {
      stop = true;
      await Promise.all(loops);
    }
    // A's submits ended at the lookup deadline as a refused webhook, never as a server error.
    expect([...statusesA]).toEqual([400]);
    // B's names were answered from /etc/hosts: none reached DNS; A's did, and only this loopback server saw them.
    expect(dns.queries.filter((q) => q.endsWith('b.test'))).toEqual([]);
    expect(dns.queries.some((q) => q.endsWith('.a.test'))).toBe(true);
    // And B's webhooks are delivered (a lookup at delivery too): the warm-up job's and the measured one's.
    const until = Date.now() + 60_000;
    while (hooksReceived.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(hooksReceived.length).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
