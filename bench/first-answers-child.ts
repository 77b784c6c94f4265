/**
 * One process of bench/first-answers.ts, both services on new embedded stores, driven over HTTP: the
 * render service with its job worker held (a submit, a read, a 404), then the metadata service against a
 * loopback page (a fetch). Each connection is warmed on `GET /v1/health` first, so the first timings are
 * the routes' own. Prints one JSON line: the first time of each, and the median of the LATER after it.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { closeCore, createCore } from '../src/app/core.js';
import { buildMetadataApp } from '../src/app/metadata-app.js';
import { loadConfig } from '../src/config.js';
import { startBenchService } from './bench-service.js';
import { median } from './stats.js';

const LATER = 20;

/** A GET or POST's time in ms, body read; throws on another status than `status`. */
async function timed(url: string, init: RequestInit, status = 200): Promise<[number, unknown]> {
  const started = performance.now();
  const res = await fetch(url, init);
  const body = await res.json();
  const ms = performance.now() - started;
  if (res.status !== status) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return [ms, body];
}

const firstAndLater = ([first, ...later]: number[]) => ({ first: first!, later: median(later) });

async function jobRoutes() {
  const service = await startBenchService('first-answers', { startJobWorker: false });
  const init = { headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' } };
  const at = (p: string) => `${service.baseUrl}${p}`;
  try {
    for (let i = 0; i < 3; i++) await timed(at('/v1/health'), {});
    const times = { submit: [] as number[], read: [] as number[], missing: [] as number[] };
    for (let i = 0; i <= LATER; i++) {
      const body = JSON.stringify({ html: '<p>first</p>' });
      const [submitMs, job] = await timed(at('/v1/jobs'), { ...init, method: 'POST', body }, 202);
      const { id } = job as { id: string };
      times.submit.push(submitMs);
      times.read.push((await timed(at(`/v1/jobs/${id}`), init))[0]);
      times.missing.push((await timed(at(`/v1/jobs/job_${'0'.repeat(32)}`), init, 404))[0]);
      await timed(at(`/v1/jobs/${id}`), { ...init, method: 'DELETE' });
    }
    return { submit: firstAndLater(times.submit), read: firstAndLater(times.read), missing: firstAndLater(times.missing) };
  } finally {
    await service.close();
  }
}

async function fetchRoute() {
  const page = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<title>First</title><meta property="og:title" content="OG first">');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-bench-first-fetch-'));
  const config = loadConfig({
    PAGEWORKS_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    EGRESS_ALLOW: '127.0.0.1/32',
    METADATA_CACHE_TTL_S: '0',
    METADATA_RATE_LIMIT: '1000000',
  });
  const core = await createCore(config, pino({ level: 'warn' }));
  const app = await buildMetadataApp(core);
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const account = await core.accounts.create(`bench-first-fetch-${process.pid}@example.com`);
    const { key } = await core.keys.create(account.id, 'metadata', 'bench');
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const url = `${base}/v1/fetch?url=${encodeURIComponent(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`)}`;
    for (let i = 0; i < 3; i++) await timed(`${base}/v1/health`, {});
    const times: number[] = [];
    for (let i = 0; i <= LATER; i++) times.push((await timed(url, { headers: { 'x-api-key': key } }))[0]);
    return { fetch: firstAndLater(times) };
  } finally {
    await app.close();
    await closeCore(core);
    page.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

process.stdout.write(`${JSON.stringify({ ...(await jobRoutes()), ...(await fetchRoute()) })}\n`);
