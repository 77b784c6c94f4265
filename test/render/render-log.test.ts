/**
 * The render log over a real SQLite store: records wait in memory and go to the store in batches
 * (a full batch at once, the rest on the interval or at close), survive a store outage, stay
 * readable meanwhile, and are swept once older than RENDER_LOG_RETENTION_DAYS (fake clock).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RenderLog } from '../../src/render/log/render-log.js';
import type { RenderRecord } from '../../src/report/report.js';
import type { ServiceLog } from '../../src/service-log.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { parseMetrics } from '../helpers/prometheus.js';

const DAY = 86_400_000;
let dir: string;
let store: Store;
let seq = 0;
const logged: string[] = [];
const log: ServiceLog = {
  error: (_o, msg) => void logged.push(msg),
  warn: (_o, msg) => void logged.push(msg),
  info: (_o, msg) => void logged.push(msg),
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-render-log-'));
  store = await openSqliteStore(dir);
  await store.createAccount({ id: 'acc_a', email: 'a@example.com', passwordHash: null, createdAt: 0 });
});

afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.useRealTimers();
  logged.length = 0;
});

function record(createdAt: number, extra: Partial<RenderRecord> = {}): RenderRecord {
  seq += 1;
  return {
    id: `rnd_${String(seq).padStart(24, '0')}`,
    accountId: 'acc_a',
    keyId: null,
    createdAt,
    durationMs: 120,
    source: 'api',
    jobId: null,
    status: 'succeeded',
    error: null,
    pages: 1,
    bytes: 1000,
    warnings: [],
    claims: [],
    ...extra,
  };
}

const stored = async (r: RenderRecord) => (await store.findRenderRecord(r.id, r.accountId)) !== undefined;

describe('render log', () => {
  it('writes a full batch at once and the rest at close, never on the caller’s time', async () => {
    const renderLog = new RenderLog({ store, retentionDays: 7, log, flushMs: 3_600_000, maxBatch: 5 });
    const now = Date.now();
    const first = Array.from({ length: 4 }, () => record(now));
    for (const r of first) renderLog.record(r);
    // Recorded, not written: the caller never waited on the store.
    expect(await stored(first[0])).toBe(false);
    expect(await renderLog.find(first[0].id, 'acc_a')).toEqual(first[0]);
    expect(await renderLog.find(first[0].id, 'acc_other')).toBeUndefined();
    // The fifth fills the batch: written without waiting for the interval.
    renderLog.record(record(now));
    await vi.waitFor(async () => expect(await stored(first[3])).toBe(true), { timeout: 10_000 });
    const last = record(now);
    renderLog.record(last);
    await renderLog.close();
    expect(await stored(last)).toBe(true);
  });

  it('writes on the interval', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const renderLog = new RenderLog({ store, retentionDays: 7, log, flushMs: 1_000 });
    const r = record(Date.now());
    renderLog.record(r);
    expect(await stored(r)).toBe(false);
    vi.advanceTimersByTime(1_000);
    await vi.waitFor(async () => expect(await stored(r)).toBe(true), { timeout: 10_000 });
    await renderLog.close();
  });

  it('keeps records through a store outage, readable meanwhile, and writes them once the store is back', async () => {
    let down = true;
    const flaky: Pick<Store, 'insertRenderRecords' | 'findRenderRecord' | 'purgeRenderRecords' | 'renderLogBytes'> = {
      insertRenderRecords: (records) =>
        down ? Promise.reject(new Error('connection refused')) : store.insertRenderRecords(records),
      findRenderRecord: (id, accountId) => store.findRenderRecord(id, accountId),
      renderLogBytes: (accountId) => store.renderLogBytes(accountId),
      purgeRenderRecords: (before) => store.purgeRenderRecords(before),
    };
    const registry = new Registry();
    const metrics = async () => parseMetrics(await registry.metrics());
    const renderLog = new RenderLog({ store: flaky, retentionDays: 7, log, flushMs: 3_600_000, maxPending: 3, registry });
    const kept = [record(Date.now()), record(Date.now()), record(Date.now())];
    for (const r of kept) renderLog.record(r);
    await renderLog.flush();
    await renderLog.flush();
    // Said once per outage, however many flushes fail.
    expect(logged.filter((m) => m === 'could not write render records; will retry')).toHaveLength(1);
    expect(await renderLog.find(kept[2].id, 'acc_a')).toEqual(kept[2]);
    // Memory is bounded while the store is away: one more is dropped, and said so once.
    const dropped = record(Date.now());
    renderLog.record(dropped);
    renderLog.record(record(Date.now()));
    expect(logged.filter((m) => m === 'render log full; dropping render records')).toHaveLength(1);
    expect((await metrics()).get('pageworks_render_log_pending{}')).toBe(3);
    expect((await metrics()).get('pageworks_render_log_dropped_total{}')).toBe(2);
    down = false;
    await renderLog.close();
    for (const r of kept) expect(await stored(r)).toBe(true);
    expect((await metrics()).get('pageworks_render_log_pending{}')).toBe(0);
    expect(await stored(dropped)).toBe(false);
    expect(logged).toContain('render log writes again; render records were dropped meanwhile');
  });

  it('sweeps records older than the retention at start and on its interval (fake clock)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let clock = Date.parse('2026-05-10T12:00:00Z');
    const eightDaysOld = record(clock - 8 * DAY);
    const sixDaysOld = record(clock - 6 * DAY);
    const fresh = record(clock - 60_000);
    await store.insertRenderRecords([eightDaysOld, sixDaysOld, fresh]);
    const renderLog = new RenderLog({ store, retentionDays: 7, log, sweepMs: 15 * 60_000, now: () => clock });
    // The first sweep runs at start.
    await vi.waitFor(async () => expect(await stored(eightDaysOld)).toBe(false), { timeout: 10_000 });
    expect(await stored(sixDaysOld)).toBe(true);
    // A day and a bit later the six-day-old one is past seven days; the next sweep takes it.
    clock += DAY + 60_000;
    vi.advanceTimersByTime(15 * 60_000);
    await vi.waitFor(async () => expect(await stored(sixDaysOld)).toBe(false), { timeout: 10_000 });
    expect(await stored(fresh)).toBe(true);
    expect(logged).toContain('deleted render records past RENDER_LOG_RETENTION_DAYS');
    await renderLog.close();
  });

  it("drops a record the store refuses, logging its id, and writes the other accounts' records of its batch at once", async () => {
    await store.createAccount({ id: 'acc_b', email: 'b@example.com', passwordHash: null, createdAt: 0 });
    const errors: Array<Record<string, unknown>> = [];
    const poison = record(Date.now());
    const picky: Pick<Store, 'insertRenderRecords' | 'findRenderRecord' | 'purgeRenderRecords' | 'renderLogBytes'> = {
      insertRenderRecords: (records) =>
        records.some((r) => r.id === poison.id)
          ? Promise.reject(new Error('NOT NULL constraint failed'))
          : store.insertRenderRecords(records),
      findRenderRecord: (id, accountId) => store.findRenderRecord(id, accountId),
      renderLogBytes: (accountId) => store.renderLogBytes(accountId),
      purgeRenderRecords: (before) => store.purgeRenderRecords(before),
    };
    const renderLog = new RenderLog({
      store: picky,
      retentionDays: 7,
      log: { ...log, error: (o, msg) => void errors.push({ ...o, msg }) },
      flushMs: 3_600_000,
    });
    const others = [record(Date.now(), { accountId: 'acc_b' }), record(Date.now()), record(Date.now(), { accountId: 'acc_b' })];
    renderLog.record(poison);
    for (const r of others) renderLog.record(r);
    await renderLog.flush();
    for (const r of others) expect(await stored(r)).toBe(true);
    expect(errors).toEqual([expect.objectContaining({ id: poison.id, msg: 'could not write a render record; dropped it' })]);
    // Not retried: the next flush writes only what came since.
    const later = record(Date.now(), { accountId: 'acc_b' });
    renderLog.record(later);
    await renderLog.close();
    expect(await stored(later)).toBe(true);
    expect(errors).toHaveLength(1);
  });
});
