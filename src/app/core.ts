import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import { AccountService } from '../accounts/accounts.js';
import { KeyService } from '../accounts/keys.js';
import { LastUsedRecorder, UsageRecorder } from '../accounts/usage.js';
import type { ApiService, Config } from '../config.js';
import { FallbackRateLimiter } from '../ratelimit/fallback.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { MemoryRateLimiter } from '../ratelimit/memory.js';
import { RedisRateLimiter } from '../ratelimit/redis.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { loggerOptions } from './logger.js';

/** The shared dependencies every service is built from. */
export interface CoreDeps {
  config: Config;
  log: Logger;
  store: Store;
  keys: KeyService;
  accounts: AccountService;
  limiter: RateLimiter;
  usage: UsageRecorder;
  lastUsed: LastUsedRecorder;
  /** Present when REDIS_URL is set. */
  redis?: Redis;
}

/** The configured requests-per-minute limit of a service, before per-account overrides. */
export function defaultLimit(config: Config, service: ApiService): number {
  return service === 'render' ? config.renderRateLimit : config.metadataRateLimit;
}

/** Connects to Redis and waits until it is ready; commands fail fast (no offline queue) later. */
export async function connectRedis(url: string): Promise<Redis> {
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
  await redis.connect();
  return redis;
}

/** Opens the store and Redis (if configured) and builds the account, key, limit and usage services. */
export async function createCore(config: Config, log: Logger = pino(loggerOptions(config))): Promise<CoreDeps> {
  const store = await openStore(config);
  let redis: Redis | undefined;
  try {
    redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  } catch (err) {
    await store.close();
    throw new Error(`REDIS_URL: cannot connect (${(err as Error).message})`, { cause: err });
  }
  const onFlushError = (what: string) => (err: unknown) =>
    log.error({ err: (err as Error).message }, `could not write ${what}; will retry`);
  const limiter = redis
    ? new FallbackRateLimiter(new RedisRateLimiter(redis), new MemoryRateLimiter(), log)
    : new MemoryRateLimiter();
  return {
    config,
    log,
    store,
    redis,
    keys: new KeyService(store),
    accounts: new AccountService(store),
    limiter,
    usage: new UsageRecorder(store, 10_000, onFlushError('usage counters')),
    lastUsed: new LastUsedRecorder(store, 30_000, onFlushError('key last-used times')),
  };
}

/** Flushes batched writes and closes everything createCore opened, in order. */
export async function closeCore(core: CoreDeps): Promise<void> {
  await core.usage.close();
  await core.lastUsed.close();
  await core.limiter.close();
  core.redis?.disconnect();
  await core.store.close();
}
