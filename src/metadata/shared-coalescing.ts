/**
 * Request coalescing across instances through Redis: of the instances that miss the same URL at the same
 * time, one fetches it and the others wait for its answer.
 *
 * The fetching instance holds a short lock (`SET <prefix>lock:<hash> <token> NX PX`) and, when done, stores
 * the result in the cache, releases the lock, then publishes the result on `<prefix>coalesce` (every instance
 * has one subscriber connection for it). A waiter listens before it tries the lock and looks in the cache
 * after failing to get it, so whenever it arrives it finds the result in the cache, the lock free, or a
 * publication still to come; never a wait for nothing. A waiter that hears of a failure, or nothing within
 * the fetch timeout, fetches the URL itself. Any Redis error means a plain fetch: coalescing is an
 * optimisation, never a reason to fail a request.
 */
import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { type DependencyHealth, UNWATCHED } from '../outage-log.js';
import { type MetadataCache, redisKeyId } from './cache.js';
import type { Metadata } from './types.js';

/** Runs a fetch for a URL unless another instance is fetching it already. */
export interface SharedCoalescer {
  /**
   * Resolves with the result for `key`: fetched here through `fetch`, or by another instance. `stored` says
   * the cache has it or is being given it by the coalescer, so the caller need not store it again.
   */
  run(key: string, fetch: () => Promise<Metadata>): Promise<{ value: Metadata; stored: boolean }>;
  /** Resolves once the subscriber listens (or could not: then every call just fetches). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Options of the shared coalescer. */
export interface SharedCoalescerOptions {
  prefix: string;
  /** Longest a fetch may take: the lock's lifetime and the longest wait. */
  fetchTimeoutMs: number;
  /** Where the fetching instance stores results before it tells the others (if caching is on). */
  cache: MetadataCache | null;
  health?: DependencyHealth;
  /** Called when a request waits for another instance. */
  onWait?: () => void;
}

/** Compare-and-delete: a lock is only released by the instance that holds it. */
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
/** Added to the fetch timeout for the lock and the wait: the fetching instance also stores and publishes. */
const MARGIN_MS = 1000;

type Waiter = (value: Metadata | null) => void;

/** Builds the coalescer on the core's Redis client; it opens one more connection for its subscription. */
export function createSharedCoalescer(redis: Redis, opts: SharedCoalescerOptions): SharedCoalescer {
  const health = opts.health ?? UNWATCHED;
  const channel = `${opts.prefix}coalesce`;
  const lockTtlMs = opts.fetchTimeoutMs + MARGIN_MS;
  const waiters = new Map<string, Set<Waiter>>();
  const sub = redis.duplicate();
  sub.on('error', () => {});
  sub.on('message', (_channel: string, message: string) => {
    const space = message.indexOf(' ');
    const set = waiters.get(message.slice(0, space));
    if (!set) return;
    const body = message.slice(space + 1);
    let value: Metadata | null = null;
    try {
      if (body !== 'failed') value = JSON.parse(body) as Metadata;
    } catch {
      // Not from a Pageworks instance of this version: the waiters fetch for themselves.
    }
    for (const waiter of [...set]) waiter(value);
  });
  // On every (re)connection, also after a failed first connect: ioredis reconnects on its own.
  let listening: () => void = () => {};
  const subscribed = new Promise<void>((resolve) => (listening = resolve));
  sub.on('ready', () => {
    sub.subscribe(channel).then(
      () => listening(),
      (err: unknown) => health.failed(err),
    );
  });
  sub.connect().catch((err: unknown) => {
    health.failed(err);
    listening();
  });

  /** Registers a waiter for `id` before the lock is tried, so no publication can slip between the two. */
  const listen = (id: string): { result: Promise<Metadata | null>; cancel: () => void } => {
    let set = waiters.get(id);
    if (!set) {
      set = new Set();
      waiters.set(id, set);
    }
    let timer: NodeJS.Timeout | undefined;
    let waiter: Waiter = () => {};
    const cancel = (): void => {
      clearTimeout(timer);
      set.delete(waiter);
      if (set.size === 0 && waiters.get(id) === set) waiters.delete(id);
    };
    const result = new Promise<Metadata | null>((resolve) => {
      waiter = (value) => {
        cancel();
        resolve(value);
      };
      set.add(waiter);
      timer = setTimeout(() => waiter(null), lockTtlMs);
    });
    return { result, cancel };
  };

  const publish = (id: string, value: Metadata | null): void => {
    redis
      .publish(channel, `${id} ${value === null ? 'failed' : JSON.stringify(value)}`)
      .catch((err: unknown) => health.failed(err));
  };

  const release = (lock: string, token: string): Promise<unknown> =>
    redis.eval(RELEASE, 1, lock, token).catch((err: unknown) => health.failed(err));

  /** Fetches under the lock; the caller gets the result at once, the others once it is stored and the lock is free. */
  const lead = async (key: string, lock: string, token: string, id: string, fetch: () => Promise<Metadata>) => {
    let value: Metadata | undefined;
    let fetched = false;
    try {
      // The result may have been stored between this instance's miss and its lock.
      value = await opts.cache?.get(key);
      if (value) return { value, stored: true };
      value = await fetch();
      fetched = true;
      return { value, stored: true };
    } finally {
      const result = value ?? null;
      // In this order: a request that finds the lock taken then finds the result in the cache, or hears it.
      void (async () => {
        if (fetched && result) await opts.cache?.set(key, result);
        await release(lock, token);
        publish(id, result);
      })();
    }
  };

  return {
    async run(key, fetch) {
      if (sub.status !== 'ready' || health.available?.() === false) return { value: await fetch(), stored: false };
      const id = redisKeyId(key);
      const lock = `${opts.prefix}lock:${id}`;
      const token = crypto.randomBytes(9).toString('base64url');
      const wait = listen(id);
      let acquired: boolean;
      try {
        acquired = (await redis.set(lock, token, 'PX', lockTtlMs, 'NX')) === 'OK';
        health.ok();
      } catch (err) {
        wait.cancel();
        health.failed(err);
        return { value: await fetch(), stored: false };
      }
      if (acquired) {
        wait.cancel();
        return lead(key, lock, token, id, fetch);
      }
      opts.onWait?.();
      const cached = await opts.cache?.get(key);
      if (cached) {
        wait.cancel();
        return { value: cached, stored: true };
      }
      const value = await wait.result;
      if (value) return { value, stored: true };
      // The other instance failed or took too long: fetch here.
      return { value: await fetch(), stored: false };
    },
    ready: () => subscribed,
    async close() {
      for (const set of waiters.values()) for (const waiter of [...set]) waiter(null);
      sub.disconnect();
    },
  };
}
