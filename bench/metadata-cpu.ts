/**
 * Metadata CPU bench: what one request costs each process in CPU time (user + system, from
 * /proc/<pid>/stat), at concurrency 16, for the service, the bare proxy and the bare proxy + our extractor.
 * CPU per request moves much less with the machine's load than requests/s do (at a load of 20 on 2 cores its
 * rounds still spread by ±15%, far more with the large saved pages), so the three compare more fairly on a
 * shared machine. The same children and loopback origin as the metadata bench; interleaved rounds, median.
 * METADATA_CPU_REQUESTS (default 4000) requests per round; METADATA_CPU_PROFILE=<dir> has each measured
 * process write a V8 CPU profile there (node --cpu-prof) when it exits.
 */
import { Pool } from 'undici';
import { metadataPages } from '../test/fixtures/corpus/index.js';
import { processesCpuMs } from './jobs-cpu.js';
import { child } from './metadata.js';
import { fmt, heading, median } from './stats.js';

const REQUESTS = Number(process.env.METADATA_CPU_REQUESTS ?? 4000);
const ROUNDS = 3;
const CONCURRENCY = 16;
const WARMUP_REQUESTS = 12_000;

/** node's arguments for each measured process: a CPU profile into METADATA_CPU_PROFILE when set. */
function profileArgs(): string[] {
  const dir = process.env.METADATA_CPU_PROFILE;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** Sends `count` requests, `concurrency` at a time; returns how many were not 200. */
async function send(origin: string, paths: string[], headers: Record<string, string>, count: number): Promise<number> {
  const pool = new Pool(origin, { connections: CONCURRENCY, pipelining: 1 });
  let next = 0;
  let errors = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const p = paths[next++ % paths.length]!;
      try {
        const res = await pool.request({ method: 'GET', path: p, headers });
        await res.body.dump({ limit: Number.MAX_SAFE_INTEGER });
        if (res.statusCode !== 200) errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await pool.close();
  return errors;
}

/** The metadata-cpu section of `npm run bench`. */
export async function runMetadataCpuBench(): Promise<void> {
  heading(`metadata: CPU per request at c=${CONCURRENCY} (${ROUNDS}×${REQUESTS} requests per process, cache off)`);
  const pages = metadataPages();
  const origin = await child('origin');
  const targets = [
    { label: 'pageworks /v1/fetch', proc: await child('service', profileArgs()), prefix: '/v1/fetch' },
    { label: 'bare proxy', proc: await child('bare-proxy', profileArgs()), prefix: '/' },
    { label: 'bare proxy + extractor', proc: await child('bare-extract', profileArgs()), prefix: '/' },
  ];
  try {
    const urls = pages.map((p) => `?url=${encodeURIComponent(`http://127.0.0.1:${origin.port}/${p.name}`)}`);
    const runs = targets.map((t) => ({
      ...t,
      base: `http://127.0.0.1:${t.proc.port}`,
      paths: urls.map((u) => `${t.prefix}${u}`),
      headers: t.proc.extra ? { 'x-api-key': t.proc.extra } : ({} as Record<string, string>),
      perRequest: [] as number[],
      errors: 0,
    }));
    for (const r of runs) r.errors += await send(r.base, r.paths, r.headers, WARMUP_REQUESTS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of runs) {
        const pid = r.proc.proc.pid!;
        const before = processesCpuMs([pid]);
        r.errors += await send(r.base, r.paths, r.headers, REQUESTS);
        r.perRequest.push((processesCpuMs([pid]) - before) / REQUESTS);
      }
    }
    process.stdout.write(`                         CPU ms/request   rounds                  errors\n`);
    for (const r of runs) {
      process.stdout.write(
        `${r.label.padEnd(24)}${fmt(median(r.perRequest), 3, 10)}       ${r.perRequest.map((v) => v.toFixed(3)).join(' ')}${String(r.errors).padStart(10)}\n`,
      );
    }
    const [ours, bare, bareExtract] = runs.map((r) => median(r.perRequest)) as [number, number, number];
    process.stdout.write(
      `extraction adds ${(bareExtract - bare).toFixed(3)} ms; the service adds ${(ours - bareExtract).toFixed(3)} ms beyond the bare proxy + extractor ` +
        `(bare ÷ ours ${(bare / ours).toFixed(2)}×, bare + extractor ÷ ours ${(bareExtract / ours).toFixed(2)}×)\n`,
    );
  } finally {
    for (const t of [origin, ...targets.map((t) => t.proc)]) t.proc.kill('SIGTERM');
  }
}
