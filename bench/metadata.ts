/**
 * Metadata bench, all in one run:
 * 1. extraction only, pages/s over the corpus: our extractor vs open-graph-scraper (html mode) vs
 *    metascraper (title, description, image, url rules);
 * 2. end to end, requests/s against a loopback origin serving the corpus (cache off), at concurrency 1 and
 *    16: our /v1/fetch vs a bare proxy (separate minimal process: fetch, discard, fixed JSON) vs
 *    open-graph-scraper fetching the URLs itself; p50 latency at concurrency 1. Also the bare proxy running
 *    our extractor, which splits the gap to the bare proxy into extraction and everything else.
 * Bounded: fixed rounds and durations, about two minutes in total.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { extractMetadata } from '../src/metadata/extract.js';
import { metadataPages } from '../test/fixtures/corpus/index.js';
import { loadPeers, type Ogs, type Peers } from './peers.js';
import { fmt, heading, median, quantile, verdict } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const E2E_SECONDS = 4;
const E2E_ROUNDS = 2;
const E2E_WARMUP_SECONDS = 5;
/** Extraction only: each contender's warm-up, and each timed round. */
const EXTRACT_WARMUP_SECONDS = 2;
const EXTRACT_ROUND_SECONDS = 1;

interface Page {
  name: string;
  url: string;
  bytes: Buffer;
  html: string;
}

/** The corpus written here, plus the saved real pages when PAGEWORKS_CORPUS_DIR is set. */
function loadCorpus(): Page[] {
  return metadataPages().map((p) => ({ ...p, html: p.bytes.toString('utf8') }));
}

/**
 * Pages per second of `fn` over the corpus: whole passes until at least `seconds` have gone by (one pass at
 * least). Rounds are timed, not counted: 20 passes of the 15 pages written here took 5 ms, too short to time.
 */
async function pagesPerSecond(pages: Page[], seconds: number, fn: (p: Page) => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  const until = start + BigInt(Math.round(seconds * 1e9));
  let done = 0;
  do {
    for (const p of pages) await fn(p);
    done += pages.length;
  } while (process.hrtime.bigint() < until);
  return done / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function extractionBench(pages: Page[], peers: Peers): Promise<{ ours: number; ogs: number; metascraper: number }> {
  heading('metadata: extraction only (corpus in memory, pages/s, one core)');
  const { ogs } = peers;
  const scrape = peers.createMetascraper([
    peers.metascraperTitle(),
    peers.metascraperDescription(),
    peers.metascraperImage(),
    peers.metascraperUrl(),
  ]);
  const ours = (p: Page) => extractMetadata(p.bytes, 'text/html', p.url);
  const og = (p: Page) => ogs({ html: p.html });
  const ms = (p: Page) => scrape({ html: p.html, url: p.url });
  // Warm-up (JIT) on every contender, then interleaved rounds. The extractor reaches its speed only after
  // thousands of pages: after three passes over the 15 pages written here it read 10,246 pages/s, against
  // 51,820 warm.
  for (const fn of [ours, og, ms]) await pagesPerSecond(pages, EXTRACT_WARMUP_SECONDS, fn);
  const r: Record<'ours' | 'ogs' | 'metascraper', number[]> = { ours: [], ogs: [], metascraper: [] };
  for (let round = 0; round < 3; round++) {
    r.ours.push(await pagesPerSecond(pages, EXTRACT_ROUND_SECONDS, ours));
    r.ogs.push(await pagesPerSecond(pages, EXTRACT_ROUND_SECONDS, og));
    r.metascraper.push(await pagesPerSecond(pages, EXTRACT_ROUND_SECONDS, ms));
  }
  const result = { ours: median(r.ours), ogs: median(r.ogs), metascraper: median(r.metascraper) };
  const mb = pages.reduce((n, p) => n + p.bytes.length, 0) / 1e6;
  process.stdout.write(`corpus: ${pages.length} pages, ${mb.toFixed(1)} MB; median of 3 rounds\n`);
  process.stdout.write(`extractor                     pages/s     ratio\n`);
  process.stdout.write(`pageworks                  ${fmt(result.ours, 1, 10)}\n`);
  process.stdout.write(`open-graph-scraper (html)  ${fmt(result.ogs, 1, 10)} ${fmt(result.ours / result.ogs, 1, 8)}×\n`);
  process.stdout.write(
    `metascraper (4 rules)      ${fmt(result.metascraper, 1, 10)} ${fmt(result.ours / result.metascraper, 1, 8)}×\n`,
  );
  return result;
}

/** Starts a bench child process (a role of metadata-children.ts) and waits for its READY line; `nodeArgs` go to its node. */
export async function child(role: string, nodeArgs: string[] = []): Promise<{ proc: ChildProcess; port: number; extra: string }> {
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(HERE, 'metadata-children.ts'), role], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: proc.stdout! });
  for await (const line of lines) {
    const m = /^READY (\d+) ?(.*)$/.exec(line);
    if (m) return { proc, port: Number(m[1]), extra: m[2] ?? '' };
  }
  throw new Error(`bench child ${role} exited before it was ready`);
}

interface LoadResult {
  rps: number;
  latenciesMs: number[];
  errors: number;
}

/** Runs `concurrency` workers for `seconds`, each sending the next path in turn; counts 200s. */
async function load(
  origin: string,
  paths: string[],
  headers: Record<string, string>,
  concurrency: number,
  seconds: number,
): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const latenciesMs: number[] = [];
  let next = 0;
  let ok = 0;
  let errors = 0;
  const deadline = Date.now() + seconds * 1000;
  const start = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const p = paths[next++ % paths.length];
      const t = process.hrtime.bigint();
      try {
        const res = await pool.request({ method: 'GET', path: p, headers });
        await res.body.text();
        if (res.statusCode === 200) {
          ok++;
          latenciesMs.push(Number(process.hrtime.bigint() - t) / 1e6);
        } else errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  await pool.close();
  return { rps: ok / elapsed, latenciesMs, errors };
}

/** open-graph-scraper fetching the pages itself, `concurrency` calls in flight. */
async function ogsLoad(ogs: Ogs, urls: string[], concurrency: number, seconds: number): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  let next = 0;
  let ok = 0;
  let errors = 0;
  const deadline = Date.now() + seconds * 1000;
  const start = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const t = process.hrtime.bigint();
      const out = await ogs({ url: urls[next++ % urls.length] }).catch(() => ({ error: true }));
      if (out.error) errors++;
      else {
        ok++;
        latenciesMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { rps: ok / (Number(process.hrtime.bigint() - start) / 1e9), latenciesMs, errors };
}

async function endToEndBench(pages: Page[], ogs: Ogs): Promise<void> {
  heading(`metadata: end to end, loopback origin serving the corpus, cache off (${E2E_ROUNDS}×${E2E_SECONDS} s per cell)`);
  const origin = await child('origin');
  const bare = await child('bare-proxy');
  const bareExtract = await child('bare-extract');
  const service = await child('service');
  const children = [origin, bare, bareExtract, service];
  try {
    const pageUrls = pages.map((p) => `http://127.0.0.1:${origin.port}/${p.name}`);
    const q = (u: string) => `?url=${encodeURIComponent(u)}`;
    const ourPaths = pageUrls.map((u) => `/v1/fetch${q(u)}`);
    const barePaths = pageUrls.map((u) => `/${q(u)}`);
    const auth = { 'x-api-key': service.extra };
    const ours = `http://127.0.0.1:${service.port}`;
    const proxy = `http://127.0.0.1:${bare.port}`;
    const proxyExtract = `http://127.0.0.1:${bareExtract.port}`;
    const typical = [...pages].sort((a, b) => a.bytes.length - b.bytes.length)[Math.floor(pages.length / 2)];
    // Warm-up (JIT, connection pools), the same for both. The extractor's time per request goes on falling
    // for its first ~10,000 requests (370 → 210 µs measured in the service): 2 s at c=4 measured a cold JIT.
    for (const [base, paths, headers] of [
      [ours, ourPaths, auth],
      [proxy, barePaths, {}],
      [proxyExtract, barePaths, {}],
    ] as const) {
      await load(base, paths, headers, 16, E2E_WARMUP_SECONDS);
    }
    const cells: Record<string, LoadResult[]> = {};
    const add = (k: string, r: LoadResult) => {
      cells[k] ??= [];
      cells[k].push(r);
    };
    for (let round = 0; round < E2E_ROUNDS; round++) {
      for (const c of [1, 16]) {
        add(`ours c${c}`, await load(ours, ourPaths, auth, c, E2E_SECONDS));
        add(`bare c${c}`, await load(proxy, barePaths, {}, c, E2E_SECONDS));
        add(`bareExtract c${c}`, await load(proxyExtract, barePaths, {}, c, E2E_SECONDS));
      }
    }
    for (const c of [1, 16]) add(`ogs c${c}`, await ogsLoad(ogs, pageUrls, c, E2E_SECONDS));
    const typicalRun = await load(ours, [`/v1/fetch${q(`http://127.0.0.1:${origin.port}/${typical.name}`)}`], auth, 1, 2);
    const rps = (k: string) => median(cells[k].map((r) => r.rps));
    const errors = (k: string) => cells[k].reduce((n, r) => n + r.errors, 0);
    process.stdout.write(`                         c=1 req/s   c=16 req/s   errors\n`);
    const rows = [
      ['pageworks /v1/fetch', 'ours'],
      ['bare proxy', 'bare'],
      ['bare proxy + extractor', 'bareExtract'],
      ['open-graph-scraper (url)', 'ogs'],
    ] as const;
    for (const [label, k] of rows) {
      process.stdout.write(
        `${label.padEnd(24)}${fmt(rps(`${k} c1`), 1, 11)}${fmt(rps(`${k} c16`), 1, 13)}${String(errors(`${k} c1`) + errors(`${k} c16`)).padStart(9)}\n`,
      );
    }
    const p50all = median(cells['ours c1'].flatMap((r) => r.latenciesMs));
    const p50typical = median(typicalRun.latenciesMs);
    const p95all = quantile(
      cells['ours c1'].flatMap((r) => r.latenciesMs),
      0.95,
    );
    process.stdout.write(
      `pageworks latency at c=1: p50 ${p50all.toFixed(2)} ms, p95 ${p95all.toFixed(2)} ms over the corpus; ` +
        `p50 ${p50typical.toFixed(2)} ms for a typical page (${typical.name}, ${(typical.bytes.length / 1024).toFixed(0)} KiB, the median size)\n`,
    );
    // Under load (c=16) the service is to serve what a lean proxy serves: auth, limits, SSRF-safe fetching
    // and exact extraction at no cost the proxy does not pay. One request at a time keeps the earlier floor.
    const bareGoal: Record<number, number> = { 1: 0.7, 16: 1.0 };
    for (const c of [1, 16]) {
      const vsBare = rps(`ours c${c}`) / rps(`bare c${c}`);
      const vsOgs = rps(`ours c${c}`) / rps(`ogs c${c}`);
      process.stdout.write(
        `c=${c}: ${vsBare.toFixed(2)}× bare proxy (goal ≥ ${bareGoal[c]!.toFixed(1)}: ${verdict(vsBare >= bareGoal[c]!)}), ` +
          `${vsOgs.toFixed(1)}× open-graph-scraper (goal ≥ 30: ${verdict(vsOgs >= 30)})\n`,
      );
    }
    process.stdout.write(`p50 at c=1 for a typical page < 5 ms: ${verdict(p50typical < 5)}\n`);
    // Not a goal: where the gap to the bare proxy lies. The extractor's share is what the bare proxy loses
    // by running it; the rest (auth, limits, egress policy, framework, logging) is ours ÷ that proxy.
    const share = (c: number) =>
      `${(rps(`bareExtract c${c}`) / rps(`bare c${c}`)).toFixed(2)}× / ${(rps(`ours c${c}`) / rps(`bareExtract c${c}`)).toFixed(2)}×`;
    process.stdout.write(
      `where the gap lies (bare proxy + extractor ÷ bare proxy / pageworks ÷ bare proxy + extractor): ` +
        `c=1 ${share(1)}, c=16 ${share(16)}\n`,
    );
  } finally {
    for (const c of children) c.proc.kill('SIGTERM');
  }
}

/** The metadata section of `npm run bench`. */
export async function runMetadataBench(): Promise<void> {
  const peers = await loadPeers();
  const pages = loadCorpus();
  const ex = await extractionBench(pages, peers);
  process.stdout.write(
    `goal extraction ≥ 40× open-graph-scraper: ${verdict(ex.ours / ex.ogs >= 40)}; ` +
      `≥ 30× metascraper: ${verdict(ex.ours / ex.metascraper >= 30)}\n`,
  );
  await endToEndBench(pages, peers.ogs);
}
