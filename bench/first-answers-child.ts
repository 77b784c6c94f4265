/**
 * One process of bench/first-answers.ts: the render service (job worker held) on a new embedded store,
 * driven over HTTP. The connection is warmed on `GET /v1/health` first, so the first timings are the
 * routes' own. Prints one JSON line: the first and the median later time of a submit, a read and a 404.
 */
import { startBenchService } from './bench-service.js';
import { median } from './stats.js';

const LATER = 20;
const service = await startBenchService('first-answers', { startJobWorker: false });
const headers = { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' };
const timed = async (path: string, init: RequestInit = {}, status = 200): Promise<[number, unknown]> => {
  const started = performance.now();
  const res = await fetch(`${service.baseUrl}${path}`, { headers, ...init });
  const body = await res.json();
  const ms = performance.now() - started;
  if (res.status !== status) throw new Error(`${init.method ?? 'GET'} ${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return [ms, body];
};
const submit = () => timed('/v1/jobs', { method: 'POST', body: JSON.stringify({ html: '<p>first</p>' }) }, 202);
try {
  for (let i = 0; i < 3; i++) await timed('/v1/health');
  const times = { submit: [] as number[], read: [] as number[], missing: [] as number[] };
  for (let i = 0; i <= LATER; i++) {
    const [submitMs, job] = await submit();
    times.submit.push(submitMs);
    times.read.push((await timed(`/v1/jobs/${(job as { id: string }).id}`))[0]);
    times.missing.push((await timed(`/v1/jobs/job_${'0'.repeat(32)}`, {}, 404))[0]);
    await timed(`/v1/jobs/${(job as { id: string }).id}`, { method: 'DELETE' });
  }
  const line = Object.fromEntries(
    Object.entries(times).map(([route, [first, ...later]]) => [route, { first, later: median(later) }]),
  );
  process.stdout.write(`${JSON.stringify(line)}\n`);
} finally {
  await service.close();
}
