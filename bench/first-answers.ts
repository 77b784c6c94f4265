/**
 * `npm run bench -- first-answers` (opt-in): what a process's first answer of a route costs against its
 * later ones: the serializers' one-time work (src/app/response-serializers.ts). FIRST_ANSWERS_N fresh
 * processes (5), each both services on the embedded store (the render service's job worker held);
 * medians over the processes of the first job submit, read and 404 and the first fetch, and of the
 * median of the 20 after each.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fmt, heading, median } from './stats.js';

const ROUTES = {
  submit: 'POST /v1/jobs',
  read: 'GET /v1/jobs/{id}',
  missing: 'GET /v1/jobs/{id} 404',
  fetch: 'GET /v1/fetch',
} as const;
type Line = Record<keyof typeof ROUTES, { first: number; later: number }>;

async function oneProcess(): Promise<Line> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'first-answers-child.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let line: Line | undefined;
  for await (const text of readline.createInterface({ input: child.stdout })) line = JSON.parse(text) as Line;
  if (!line) throw new Error('first-answers-child printed nothing');
  return line;
}

/** Runs the processes one after another and prints, per route, the medians and their ratio. */
export async function runFirstAnswersBench(): Promise<void> {
  const n = Math.max(1, Number(process.env.FIRST_ANSWERS_N ?? 5));
  heading(`first answer vs later ones: ${n} fresh processes, embedded store, job worker held`);
  const lines: Line[] = [];
  for (let i = 0; i < n; i++) lines.push(await oneProcess());
  for (const [route, label] of Object.entries(ROUTES) as [keyof typeof ROUTES, string][]) {
    const first = median(lines.map((l) => l[route].first));
    const later = median(lines.map((l) => l[route].later));
    const spread = lines.map((l) => l[route].first.toFixed(0)).join(' ');
    process.stdout.write(
      `${label.padEnd(22)} first ${fmt(first, 1, 6)} ms (${spread})   later ${fmt(later, 1, 5)} ms   ${fmt(first / later, 1, 5)}×\n`,
    );
  }
}
