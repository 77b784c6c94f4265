/**
 * The separate processes of the metadata bench, chosen by argv[2]:
 * - `origin`: serves the corpus pages from memory at /<name> as text/html without charset;
 * - `bare-proxy`: GET /?url= fetches the URL with undici, discards the body, answers fixed JSON —
 *   the I/O limit of this request shape;
 * - `service`: the real metadata service (cache off, limit out of the way, production logging) on a real port.
 * Each prints one line `READY <port> [<key>]` on stdout when it listens.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';

const CORPUS = process.env.METADATA_CORPUS_DIR ?? '/work/shared/corpus/metadata';
/**
 * The service runs from the tsc build, as `npm start` does (setup builds it before the bench);
 * BENCH_BUILD=src runs the TypeScript sources through tsx instead.
 */
const BUILD = process.env.BENCH_BUILD === 'src' ? '../src' : '../dist';

async function origin(): Promise<void> {
  const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8')) as Array<{ name: string }>;
  const pages = new Map(manifest.map((m) => [`/${m.name}`, fs.readFileSync(path.join(CORPUS, 'pages', `${m.name}.html`))]));
  const server = http.createServer((req, res) => {
    const body = pages.get(req.url ?? '');
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

async function bareProxy(): Promise<void> {
  const answer = Buffer.from('{"ok":true}');
  const server = http.createServer(async (req, res) => {
    const target = new URL(req.url ?? '/', 'http://proxy').searchParams.get('url');
    try {
      const upstream = await request(target ?? '');
      await upstream.body.dump({ limit: Number.MAX_SAFE_INTEGER });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
      res.end(answer);
    } catch {
      res.writeHead(502);
      res.end();
    }
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
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
else if (role === 'bare-proxy') await bareProxy();
else if (role === 'service') await service();
else {
  console.error(`unknown role ${role}`);
  process.exit(2);
}
