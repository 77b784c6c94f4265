import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AccountService } from '../accounts/accounts.js';
import { ActivityLog } from '../accounts/activity.js';
import { CertificateService } from '../accounts/certificates.js';
import { KeyService } from '../accounts/keys.js';
import { PasswordResets } from '../accounts/password-reset.js';
import { type ParsedPkcs12, Pkcs12Error } from '../accounts/pkcs12.js';
import { LastUsedRecorder, UsageRecorder } from '../accounts/usage.js';
import type { Config } from '../config.js';
import type { DashboardCore } from '../dashboard/context.js';
import { deleteJobsWithAccount } from '../jobs/account-deletion.js';
import { openResultStore } from '../jobs/results/open-result-store.js';
import type { JobsCore } from '../jobs/runtime.js';
import { configurePdfEngineFrom, PdfWorkError, PdfWorkLimitError, pdfEngine, stopPdfEngine } from '../pdf/engine.js';
import { FallbackRateLimiter } from '../ratelimit/fallback.js';
import { MemoryRateLimiter } from '../ratelimit/memory.js';
import { RedisRateLimiter } from '../ratelimit/redis.js';
import { FallbackStrikeCounter, MemoryStrikeCounter, RedisStrikeCounter } from '../ratelimit/strikes.js';
import { loadServerKey } from '../secrets/server-key.js';
import { openStore } from '../store/open-store.js';
import { openPostgresStore } from '../store/postgres.js';
import { createLogger } from './logger.js';

/**
 * The shared dependencies every service is built from: what the dashboard and the jobs runtime each
 * declare they take, plus the logger.
 */
export interface CoreDeps extends DashboardCore, JobsCore {
  log: Logger;
}

/** A Redis client that connects on `connect()`, fails commands fast and reconnects with capped back-off. */
function redisClient(url: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Connection errors are reported by the commands that fail; reconnects happen on their own.
  redis.on('error', () => {});
  return redis;
}

/** Connects to Redis and waits until it is ready; commands fail fast (no offline queue) later. */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = redisClient(url);
  await redis.connect();
  return redis;
}

/**
 * Connects to Redis for a serving instance. If Redis does not answer at start the instance still
 * comes up, degraded exactly as when Redis goes away later (per-instance limits, logged loudly):
 * the client goes on reconnecting (ioredis does so after a failed first connect too) and the
 * shared limiter takes over again when it answers.
 */
async function connectRedisOrDegrade(url: string, log: Logger): Promise<Redis> {
  const redis = redisClient(url);
  try {
    await redis.connect();
  } catch (err) {
    log.error(
      { err: (err as Error).message },
      'REDIS_URL: Redis unreachable at start; serving with per-instance limits and reconnecting in the background',
    );
    redis.once('ready', () => log.info({}, 'Redis reachable; shared rate limits resume'));
  }
  return redis;
}

/** A PKCS#12 upload read in a PDF worker; its refusals and an overrun of the work's limits are Pkcs12Error. */
async function readPkcs12InWorker(data: Buffer, password: string): Promise<ParsedPkcs12> {
  try {
    return await pdfEngine().run('read-pkcs12', { data, password }, { label: 'pkcs12' });
  } catch (error) {
    if (error instanceof PdfWorkLimitError || (error instanceof PdfWorkError && error.kind === 'Pkcs12Error'))
      throw new Pkcs12Error(error.message);
    throw error;
  }
}

/** Test seam: a Redis key prefix, so tests sharing one Redis never see each other's counters. */
export interface CoreOptions {
  redisPrefix?: string;
}

/**
 * Opens the store and Redis (if configured) and builds the account, key, limit and usage services.
 * Neither an unreachable PostgreSQL nor an unreachable Redis stops the start (see docs/deploy.md,
 * "Degraded modes"): the instance is live, not ready, and recovers on its own.
 */
export async function createCore(config: Config, log: Logger = createLogger(config), opts: CoreOptions = {}): Promise<CoreDeps> {
  const store = config.databaseUrl
    ? await openPostgresStore(config.databaseUrl, { background: { log } })
    : await openStore(config);
  const redis = config.redisUrl ? await connectRedisOrDegrade(config.redisUrl, log) : undefined;
  const onFlushError = (what: string) => (err: unknown) =>
    log.error({ err: (err as Error).message }, `could not write ${what}; will retry`);
  const prefix = opts.redisPrefix ?? 'pw:';
  const limiter = redis
    ? new FallbackRateLimiter(new RedisRateLimiter(redis, `${prefix}rl:`), new MemoryRateLimiter(), log)
    : new MemoryRateLimiter();
  const strikes = redis
    ? new FallbackStrikeCounter(new RedisStrikeCounter(redis, `${prefix}strikes:`), new MemoryStrikeCounter(), log)
    : new MemoryStrikeCounter();
  const results = openResultStore(config);
  const accounts = new AccountService(store, { passwordHashCost: config.passwordHashCost });
  deleteJobsWithAccount(accounts, { store, results });
  const activity = new ActivityLog(store, config.activityRetentionDays);
  // Customers' PDFs, PKCS#12 files and XML are worked on in these limits, off the event loop (pdf/engine.ts).
  configurePdfEngineFrom(config);
  const secrets = loadServerKey(config);
  return {
    config,
    log,
    store,
    results,
    redis,
    keys: new KeyService(store),
    accounts,
    activity,
    secrets,
    certificates: new CertificateService(store, activity, secrets?.box, Date.now, readPkcs12InWorker),
    resets: new PasswordResets(store, accounts),
    limiter,
    strikes,
    usage: new UsageRecorder(store, 10_000, onFlushError('usage counters')),
    lastUsed: new LastUsedRecorder(store, 30_000, onFlushError('key last-used times')),
  };
}

/** Flushes batched writes and closes everything createCore opened, in order. */
export async function closeCore(core: CoreDeps): Promise<void> {
  // The services have drained: no request waits on a PDF worker any more.
  await stopPdfEngine();
  await core.usage.close();
  await core.lastUsed.close();
  await core.limiter.close();
  core.redis?.disconnect();
  await core.results.close();
  await core.store.close();
}
