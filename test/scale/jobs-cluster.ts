/**
 * A render-jobs deployment on loopback for the scale suite and `npm run bench -- jobs`: a fresh
 * PostgreSQL database, a private redis-server (restartable without touching the shared one), an
 * S3-protocol server (s3rver, in a process of its own), a webhook receiver, N `serve --services render` instances (they
 * answer the API and work jobs too: the service has no API-only mode) and M `render-worker`s.
 */
import { type S3Server, s3Env, startS3ServerProcess } from '../helpers/s3-server.js';
import { type FreshDatabase, freshDatabase, OwnRedis, sleep } from './backends.js';
import { eventually, Seeder } from './cluster.js';
import { alive, descendants, Instance, runCli } from './instances.js';
import { WebhookReceiver } from './webhook-receiver.js';

/** How long a process may take to listen: Chromium and the TypeScript loader start slowly on a busy machine. */
const START_MS = 180_000;

/** The public job object, as far as these tests read it. */
export interface JobObject {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
  reference: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  attempts: number;
  error: { code: string; message: string } | null;
  pdf: { bytes: number; pages: number; url: string; expires_at: string } | null;
}

/** An account with a render key and its webhook signing secret. */
export interface JobsAccount {
  label: string;
  email: string;
  key: string;
  secret: string;
}

/** How the deployment is laid out. */
export interface JobsClusterOptions {
  apis: number;
  workers: number;
  /** Without: no REDIS_URL at all (workers find jobs by polling the store). */
  redis?: boolean;
  /** Extra environment for every process (lease length, webhook retry scale, concurrency …). */
  env?: Record<string, string>;
}

/** The running deployment; `close()` stops everything it started. */
export class JobsCluster {
  readonly apis: Instance[] = [];
  readonly workers: Instance[] = [];
  private seeder: Seeder | undefined;

  private constructor(
    readonly db: FreshDatabase,
    readonly redis: OwnRedis | undefined,
    readonly s3: S3Server,
    readonly receiver: WebhookReceiver,
    private readonly options: JobsClusterOptions,
  ) {}

  /** Starts the backends, then the API instances, then the workers. */
  static async start(databaseUrl: string, options: JobsClusterOptions): Promise<JobsCluster> {
    const db = await freshDatabase(databaseUrl, 'pw_jobs');
    const cluster = new JobsCluster(
      db,
      options.redis === false ? undefined : await OwnRedis.start(),
      // In a process of its own, as a real S3 is: not on the event loop of the process driving the load.
      await startS3ServerProcess(),
      await WebhookReceiver.create(),
      options,
    );
    try {
      // One process first, so the migrations run once before the others start.
      const services = [...Array(options.apis).fill('render'), ...Array(options.workers).fill('render-worker')];
      const [first, ...rest] = services as Array<'render' | 'render-worker'>;
      const started = [await Instance.start(first!, cluster.env(), START_MS)];
      const others = await Promise.allSettled(rest.map((service) => Instance.start(service, cluster.env(), START_MS)));
      for (const other of others) if (other.status === 'fulfilled') started.push(other.value);
      const failure = others.find((other) => other.status === 'rejected');
      if (failure) {
        for (const instance of started) instance.kill();
        throw failure.reason;
      }
      cluster.apis.push(...started.slice(0, options.apis));
      cluster.workers.push(...started.slice(options.apis));
      cluster.seeder = await Seeder.open(db.url);
    } catch (err) {
      await cluster.close();
      throw err;
    }
    return cluster;
  }

  /** The environment every process of the deployment gets. */
  env(): Record<string, string> {
    return {
      DATABASE_URL: this.db.url,
      ...(this.redis ? { REDIS_URL: this.redis.url } : {}),
      ...s3Env(this.s3),
      EGRESS_ALLOW: '127.0.0.1/32',
      LOG_LEVEL: 'warn',
      RENDER_CONCURRENCY: '1',
      ...this.options.env,
    };
  }

  /** A new account with an unlimited render key and its webhook secret (from the CLI, as an operator gets it). */
  async account(label: string): Promise<JobsAccount> {
    const email = `${label}-${Math.random().toString(16).slice(2)}@example.com`;
    const { key } = await this.seeder!.key('render', 1_000_000, email);
    const cli = await runCli(['webhooks', 'secret', '--email', email], { DATABASE_URL: this.db.url });
    const secret = cli.stdout.trim();
    if (cli.code !== 0 || !secret.startsWith('whsec_')) throw new Error(`webhooks secret failed (${cli.code}): ${cli.stderr}`);
    this.receiver.trust(label, secret);
    return { label, email, key, secret };
  }

  /**
   * SIGKILLs worker `index` as soon as it has a render in flight, checks that none of its Chromium
   * processes outlives it, and starts a fresh worker in its place. Returns whether a render was in
   * flight at the kill and the orphans found (none expected).
   */
  async killWorker(index: number): Promise<{ midRender: boolean; orphans: number[] }> {
    const victim = this.workers[index]!;
    const midRender = await eventually(async () => (await rendersInFlight(victim)) > 0, 10_000, 20);
    const children = descendants(victim.pid);
    await victim.stop('SIGKILL');
    // Chromium sees its pipe close and exits by itself; give it a moment.
    const until = Date.now() + 5000;
    while (children.some(alive) && Date.now() < until) await sleep(100);
    const orphans = children.filter(alive);
    for (const pid of orphans) process.kill(pid, 'SIGKILL');
    this.workers[index] = await Instance.start('render-worker', this.env(), START_MS);
    return { midRender, orphans };
  }

  /**
   * Waits until every job of `ids` is final (read from the queue of record) and returns the epoch ms
   * at which the last of them finished; throws after `timeoutMs`.
   */
  async waitFinal(ids: string[], timeoutMs: number): Promise<number> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await this.db.query<{ open: string; last: string | null }>(
        `select count(*) filter (where status in ('queued', 'running')) as open, max(finished_at) as last
           from render_jobs where id = any($1)`,
        [ids],
      );
      if (Number(row!.open) === 0) return Number(row!.last);
      if (Date.now() > until) throw new Error(`${row!.open} of ${ids.length} jobs still open after ${timeoutMs} ms`);
      // The end is read from finished_at, so a slow poll costs no precision; each poll opens a
      // PostgreSQL connection (a backend process), which at 10 a second took CPU from the renders measured.
      await sleep(1000);
    }
  }

  /** Every Node process of the deployment. */
  get instances(): Instance[] {
    return [...this.apis, ...this.workers];
  }

  /** Stops every process (SIGTERM, so Chromium goes with it) and the backends, and drops the database. */
  async close(): Promise<void> {
    await Promise.all(this.instances.map((i) => i.stop().catch(() => i.kill())));
    await this.seeder?.close();
    await this.receiver.down();
    await this.redis?.stop();
    await this.s3.close();
    await this.db.drop();
  }
}

/** POST /v1/jobs; throws unless 202. */
export async function submitJob(
  api: Instance,
  key: string,
  body: { html: string; reference?: string; webhook?: { url: string }; options?: Record<string, unknown> },
): Promise<JobObject> {
  const res = await fetch(`${api.url}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`POST /v1/jobs answered ${res.status}: ${text}`);
  return JSON.parse(text) as JobObject;
}

/** GET /v1/jobs/{id}; throws unless 200. */
export async function getJob(api: Instance, key: string, id: string): Promise<JobObject> {
  const res = await fetch(`${api.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /v1/jobs/${id} answered ${res.status}: ${text}`);
  return JSON.parse(text) as JobObject;
}

/** GET /v1/jobs/{id}/pdf: status, content type and bytes. */
export async function downloadPdf(
  api: Instance,
  key: string,
  id: string,
): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(`${api.url}/v1/jobs/${id}/pdf`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Job counts by status, straight from the queue of record (progress for the driver, not an assertion). */
export async function statusCounts(db: FreshDatabase): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: string }>('select status, count(*) as n from render_jobs group by status');
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** The `pageworks_renders_in_flight` gauge of an instance. */
async function rendersInFlight(instance: Instance): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  return Number(/^pageworks_renders_in_flight(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
}
