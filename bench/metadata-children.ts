/**
 * The separate processes of the metadata bench, chosen by argv[2]:
 * - `origin`: serves the corpus pages from memory at /<name> (any query ignored: cache busting) as text/html without charset;
 * - `bare-proxy`: GET /?url= fetches the URL with undici, discards the body, answers fixed JSON —
 *   the I/O limit of this request shape;
 * - `bare-extract`: the same proxy running our extractor over the body (no auth, limits or policy);
 * - `service`: the real metadata service (cache off, limit out of the way, production logging) on a real port.
 * Each prints one line `READY <port> [<key>]` on stdout when it listens.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Dispatcher, request } from 'undici';
import { metadataPages } from '../test/fixtures/corpus/index.js';

/**
 * The service runs from the tsc build, as `npm start` does (setup builds it before the bench);
 * BENCH_BUILD=src runs the TypeScript sources through tsx instead.
 */
const BUILD = process.env.BENCH_BUILD === 'src' ? '../src' : '../dist';

async function origin(): Promise<void> {
  // The same pages as the bench process: PAGEWORKS_CORPUS_DIR is inherited.
  const pages = new Map(metadataPages().map((p) => [`/${p.name}`, p.bytes]));
  const server = http.createServer((req, res) => {
    const body = pages.get((req.url ?? '').split('?')[0]!);
    res.on('error', () => {});
    if (!body) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html', 'content-length': body.length });
    res.end(body);
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
}

/**
 * A minimal proxy on node:http: GET /?url= fetches the URL with undici and answers what `answer` makes of
 * the response (it must read the body to its end), 502 when the fetch fails.
 */
function proxyServer(answer: (upstream: Dispatcher.ResponseData, target: string) => Promise<Buffer>): void {
  const server = http.createServer(async (req, res) => {
    const target = new URL(req.url ?? '', 'http://proxy/').searchParams.get('url') ?? '';
    try {
      const body = await answer(await request(target), target);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    } catch {
      res.writeHead(502);
      res.end();
    }
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
  // An exit rather than death by the signal, so a CPU profile (node --cpu-prof) is written.
  process.on('SIGTERM', () => process.exit(0));
}

/** The bare proxy: discards the body, answers a fixed JSON. */
function bareProxy(): void {
  const fixed = Buffer.from('{"ok":true}');
  proxyServer(async (upstream) => {
    await upstream.body.dump({ limit: Number.MAX_SAFE_INTEGER });
    return fixed;
  });
}

/**
 * The bare proxy plus our extractor on the same bytes, answering the eight fields: what extraction alone
 * costs on top of the proxy, so the bench can show what the service adds besides it.
 */
async function bareExtractProxy(): Promise<void> {
  const { MetadataExtractor } = (await import(
    `${BUILD}/metadata/metadata-extractor.js`
  )) as typeof import('../src/metadata/metadata-extractor.js');
  proxyServer(async (upstream, target) => {
    const contentType = upstream.headers['content-type'];
    const extractor = new MetadataExtractor(typeof contentType === 'string' ? contentType : null, target);
    // Read to the end (no early stop): the connection stays reusable, as the bare proxy's does.
    for await (const chunk of upstream.body) extractor.push(chunk as Buffer);
    return Buffer.from(JSON.stringify(extractor.finish()));
  });
}

/**
 * Logs as in production: the production logger options at LOG_LEVEL (default info, the production
 * default: one line per request), written asynchronously to /dev/null instead of stdout.
 */
async function serviceCore(env: Record<string, string>) {
  const { default: pino } = await import('pino');
  const { createCore } = (await import(`${BUILD}/app/core.js`)) as typeof import('../src/app/core.js');
  const { loggerOptions } = (await import(`${BUILD}/app/logger.js`)) as typeof import('../src/app/logger.js');
  const { loadConfig } = (await import(`${BUILD}/config.js`)) as typeof import('../src/config.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-bench-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const config = loadConfig({ LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', PAGEWORKS_DATA_DIR: dir, ...env });
  return createCore(config, pino(loggerOptions(config), pino.destination({ dest: '/dev/null', sync: false })));
}

async function service(): Promise<void> {
  const { buildMetadataApp } = (await import(`${BUILD}/app/metadata-app.js`)) as typeof import('../src/app/metadata-app.js');
  const { createKey } = await import('../test/helpers/core.js');
  const core = await serviceCore({ EGRESS_ALLOW: '127.0.0.1/32', METADATA_CACHE_TTL_S: '0', METADATA_RATE_LIMIT: '1000000' });
  const app = await buildMetadataApp(core);
  const { key } = await createKey(core, 'metadata');
  await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`READY ${(app.server.address() as AddressInfo).port} ${key}`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

const role = process.argv[2];
if (role === 'origin') await origin();
else if (role === 'bare-proxy') bareProxy();
else if (role === 'bare-extract') await bareExtractProxy();
else if (role === 'service') await service();
else {
  console.error(`unknown role ${role}`);
  process.exit(2);
}
