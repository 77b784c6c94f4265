/**
 * `npm run bench -- first-answers` (opt-in): what a process's first answer of a job route costs against
 * its later ones: the serializers' one-time work (src/app/response-serializers.ts). FIRST_ANSWERS_N
 * fresh processes (5), each the render service on the embedded store with its job worker held; medians
 * over the processes of the first submit, read and 404, and of the median of the 20 after each.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fmt, heading, median } from './stats.js';

type Line = Record<'submit' | 'read' | 'missing', { first: number; later: number }>;

async function oneProcess(): Promise<Line> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'first-answers-child.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let line: Line | undefined;
  for await (const text of readline.createInterface({ input: child.stdout })) line = JSON.parse(text) as Line;
  if (!line) throw new Error('first-answers-child printed nothing');
  return line;
}

export async function runFirstAnswersBench(): Promise<void> {
  const n = Math.max(1, Number(process.env.FIRST_ANSWERS_N ?? 5));
  heading(`first answer vs later ones of the job routes: ${n} fresh processes, embedded store, worker held`);
  const lines: Line[] = [];
  for (let i = 0; i < n; i++) lines.push(await oneProcess());
  const labels = { submit: 'POST /v1/jobs', read: 'GET /v1/jobs/{id}', missing: 'GET /v1/jobs/{id} 404' } as const;
  for (const route of ['submit', 'read', 'missing'] as const) {
    const first = median(lines.map((l) => l[route].first));
    const later = median(lines.map((l) => l[route].later));
    const spread = lines.map((l) => l[route].first.toFixed(0)).join(' ');
    process.stdout.write(
      `${labels[route].padEnd(22)} first ${fmt(first, 1, 6)} ms (${spread})   later ${fmt(later, 1, 5)} ms   ${fmt(first / later, 1, 5)}×\n`,
    );
  }
}
