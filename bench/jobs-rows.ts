/**
 * `npm run bench -- jobs-rows` (opt-in): does a render instance's memory grow with the jobs table, or
 * leak per job? JOBS_ROWS_N (20,000) job lifecycles on the embedded store, without Chromium, each in a
 * fresh process: rows kept (as for RENDER_JOB_RETENTION_H + 7 days) and rows deleted by the retention
 * sweeps. RSS and heap after a GC, and the database size, every twentieth of the jobs.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { slope } from './soak-probe.js';
import { fmt, heading } from './stats.js';

interface Sample {
  jobs: number;
  rssMb: number;
  heapMb: number;
  dbMb: number;
}

async function run(mode: 'keep' | 'delete', total: number): Promise<Sample[]> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join(import.meta.dirname, 'jobs-rows-child.ts'), mode, String(total)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const samples: Sample[] = [];
  for await (const line of readline.createInterface({ input: child.stdout })) samples.push(JSON.parse(line) as Sample);
  return samples;
}

/** Runs both modes and prints the series and the slopes per 1,000 jobs after the first tenth. */
export async function runJobsRowsBench(): Promise<void> {
  const total = Math.max(1000, Number(process.env.JOBS_ROWS_N ?? 20_000));
  heading(`jobs table vs memory: ${total} job lifecycles on the embedded store (no Chromium), rows kept / deleted`);
  for (const mode of ['keep', 'delete'] as const) {
    const samples = await run(mode, total);
    const warm = samples.filter((s) => s.jobs >= total / 10);
    const per = (pick: (s: Sample) => number) => fmt(slope(warm.map((s) => [s.jobs / 1000, pick(s)] as const)), 2, 0);
    process.stdout.write(
      `rows ${mode === 'keep' ? 'kept   ' : 'deleted'}: RSS MB ${samples.map((s) => s.rssMb.toFixed(0)).join(' ')}\n`,
    );
    process.stdout.write(`              heap MB ${samples.map((s) => s.heapMb.toFixed(1)).join(' ')}\n`);
    process.stdout.write(`              db MB ${samples.map((s) => s.dbMb.toFixed(1)).join(' ')}\n`);
    process.stdout.write(
      `              per 1,000 jobs after the first tenth: RSS ${per((s) => s.rssMb)} MB, heap ${per((s) => s.heapMb)} MB, database ${per((s) => s.dbMb)} MB\n`,
    );
  }
}
