import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeOf, usageBatchOf } from '../../src/accounts/usage.js';
import type { CoreDeps } from '../../src/app/core.js';
import { html, raw } from '../../src/dashboard/html.js';
import { openForSession, sealForSession } from '../../src/dashboard/key-reveal.js';
import { LoginThrottle } from '../../src/dashboard/login-throttle.js';
import { hashSessionId, SessionManager } from '../../src/dashboard/sessions.js';
import { hourlySeries, keyActivity, usageSeries, windowStart } from '../../src/dashboard/usage-series.js';
import { integerTicks, usageChart } from '../../src/dashboard/views/usage-chart.js';
import { MemoryStrikeCounter } from '../../src/ratelimit/strikes.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';

describe('html template', () => {
  it('escapes interpolated text, attributes and nested arrays but not nested templates', () => {
    const name = `<script>alert("x")</script> & 'q'`;
    const out = html`<p title="${name}">${name}</p>${[html`<b>${'<i>'}</b>`, 1, null, undefined, false]}${raw('<hr>')}`.value;
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;</p><b>&lt;i&gt;</b>1<hr>',
    );
  });
});

describe('login throttle', () => {
  it('lets 5 failures through, then backs off exponentially up to the cap', async () => {
    let now = 0;
    const t = new LoginThrottle(new MemoryStrikeCounter(() => now), undefined, () => now);
    for (let i = 0; i < 4; i++) await t.fail('a@x.io', '1.1.1.1');
    expect(await t.retryAfterMs('a@x.io', '1.1.1.1')).toBe(0);
    await t.fail('A@x.io ', '1.1.1.1'); // same email, other spelling
    expect(await t.retryAfterMs('a@x.io', '2.2.2.2')).toBe(15_000);
    now += 15_000;
    expect(await t.retryAfterMs('a@x.io', '2.2.2.2')).toBe(0);
    await t.fail('a@x.io', '1.1.1.1');
    expect(await t.retryAfterMs('a@x.io', '3.3.3.3')).toBe(30_000);
    for (let i = 0; i < 10; i++) await t.fail('a@x.io', '1.1.1.1');
    expect(await t.retryAfterMs('a@x.io', '3.3.3.3')).toBe(15 * 60_000);
    expect(await t.retryAfterMs('b@x.io', '3.3.3.3')).toBe(0);
  });

  it('success clears the email count but not the IP count; quiet time forgets both', async () => {
    let now = 0;
    const t = new LoginThrottle(
      new MemoryStrikeCounter(() => now),
      { emailThreshold: 2, ipThreshold: 3, baseDelayMs: 1000, maxDelayMs: 10_000, forgetAfterMs: 10_000 },
      () => now,
    );
    await t.fail('a@x.io', 'ip');
    await t.fail('a@x.io', 'ip');
    expect(await t.retryAfterMs('a@x.io', 'other')).toBe(1000);
    await t.succeed('a@x.io');
    expect(await t.retryAfterMs('a@x.io', 'other')).toBe(0);
    await t.fail('b@x.io', 'ip');
    expect(await t.retryAfterMs('c@x.io', 'ip')).toBe(1000);
    now += 20_000;
    expect(await t.retryAfterMs('c@x.io', 'ip')).toBe(0);
    await t.fail('b@x.io', 'ip');
    expect(await t.retryAfterMs('c@x.io', 'ip')).toBe(0);
  });
});

describe('usage series and chart', () => {
  const now = Date.parse('2025-03-31T12:00:00Z');
  const rows = [
    { service: 'render' as const, bucket: '2025-03-31', outcome: 'ok' as const, count: 40 },
    { service: 'render' as const, bucket: '2025-03-31', outcome: 'rate_limited' as const, count: 3 },
    { service: 'render' as const, bucket: '2025-03-02', outcome: 'server_error' as const, count: 1 },
    { service: 'render' as const, bucket: '2025-03-01', outcome: 'ok' as const, count: 99 },
    { service: 'metadata' as const, bucket: '2025-03-10', outcome: 'client_error' as const, count: 5 },
  ];

  it('is dense over 30 UTC days and ignores rows outside the window', () => {
    expect(windowStart(now, 30)).toBe('2025-03-02');
    const s = usageSeries(rows, now, 30);
    expect(s.render.buckets).toHaveLength(30);
    expect(s.render.buckets[0]!.bucket).toBe('2025-03-02');
    expect(s.render.buckets[29]).toEqual({
      bucket: '2025-03-31',
      counts: { ok: 40, client_error: 0, target_error: 0, rate_limited: 3, server_error: 0 },
      total: 43,
    });
    expect(s.render.total).toBe(44);
    expect(s.metadata.totals.client_error).toBe(5);
  });

  it('draws stacked bars with a per-day title and round gridlines', () => {
    const svg = usageChart(usageSeries(rows, now, 30).render).value;
    expect(svg).toContain('<title>Mar 31: 43 requests (OK: 40, Rate limited: 3)</title>');
    expect(svg.match(/<rect class="o-ok"/g)).toHaveLength(1);
    expect(svg.match(/<rect class="o-rate_limited"/g)).toHaveLength(1);
    expect(svg).toContain('>50</text>');
    expect(svg).toContain('aria-label="Requests per day over the last 30 days for the render service: 44 in total."');
  });

  it('labels the y-axis with whole numbers only', () => {
    expect(integerTicks(0)).toEqual([0, 1, 2, 3, 4]);
    expect(integerTicks(5)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(integerTicks(43)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(integerTicks(101)).toEqual([0, 25, 50, 75, 100, 125]);
    expect(integerTicks(2400)).toEqual([0, 500, 1000, 1500, 2000, 2500]);
    for (let max = 0; max <= 3000; max++) {
      const ticks = integerTicks(max);
      expect(ticks.every(Number.isInteger), String(max)).toBe(true);
      expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(6);
    }
    // The chart of a busiest day of 5 requests (ticks of 1.25 before).
    const svg = usageChart(
      usageSeries([{ service: 'render', bucket: '2025-03-31', outcome: 'ok', count: 5 }], now, 30).render,
    ).value;
    const yLabels = [...svg.matchAll(/class="axis axis-y"[^>]*>([^<]+)</g)].map((m) => m[1]);
    expect(yLabels).toEqual(['0', '1', '2', '3', '4', '5']);
  });

  it('draws the last 24 hours by hour, target errors in their own colour', () => {
    const hours = hourlySeries(
      [
        { service: 'metadata', bucket: '2025-03-31T11', outcome: 'target_error', count: 2 },
        { service: 'metadata', bucket: '2025-03-31T12', outcome: 'ok', count: 3 },
        { service: 'metadata', bucket: '2025-03-30T12', outcome: 'ok', count: 50 }, // 24 hours ago: outside
      ],
      now,
      24,
    ).metadata;
    expect(hours.buckets.map((b) => b.bucket)).toEqual(
      Array.from({ length: 24 }, (_, i) => new Date(now - (23 - i) * 3_600_000).toISOString().slice(0, 13)),
    );
    expect(hours.total).toBe(5);
    const svg = usageChart(hours).value;
    expect(svg).toContain('<title>Mar 31, 11:00–12:00 UTC: 2 requests (Target error: 2)</title>');
    expect(svg).toContain('<rect class="o-target_error"');
    expect(svg).toContain('>12:00</text>');
    expect(svg).toContain('aria-label="Requests per hour over the last 24 hours for the metadata service: 5 in total."');
  });
});

describe('usage counting', () => {
  it("counts a metadata 502/504 as the target's error, not ours", () => {
    expect([502, 504].map((s) => outcomeOf(s, 'metadata'))).toEqual(['target_error', 'target_error']);
    expect([500, 503].map((s) => outcomeOf(s, 'metadata'))).toEqual(['server_error', 'server_error']);
    expect([502, 504].map((s) => outcomeOf(s, 'render'))).toEqual(['server_error', 'server_error']);
    expect([200, 400, 401, 429].map((s) => outcomeOf(s, 'metadata'))).toEqual([
      'ok',
      'client_error',
      'client_error',
      'rate_limited',
    ]);
  });

  it('turns pending per-key hourly counts into per-account daily, per-key daily and per-key hourly rows', () => {
    const batch = usageBatchOf([
      ['acc\tk1\trender\t2025-03-31T10\tok', 2],
      ['acc\tk1\trender\t2025-03-31T11\tok', 3],
      ['acc\tk2\trender\t2025-03-31T11\tok', 4],
    ]);
    expect(batch.daily).toEqual([{ accountId: 'acc', service: 'render', day: '2025-03-31', outcome: 'ok', count: 9 }]);
    expect(batch.keyDaily).toEqual([
      { keyId: 'k1', accountId: 'acc', service: 'render', bucket: '2025-03-31', outcome: 'ok', count: 5 },
      { keyId: 'k2', accountId: 'acc', service: 'render', bucket: '2025-03-31', outcome: 'ok', count: 4 },
    ]);
    expect(batch.keyHourly).toHaveLength(3);
    const activity = keyActivity(batch.keyDaily);
    expect(activity.get('k1')?.total).toBe(5);
    expect(activity.get('k3')).toBeUndefined();
  });
});

describe('one-time key display', () => {
  it('opens only with the same session id and key id', () => {
    const sealed = sealForSession('session-a', 'key_1', 'pwr_live_secret');
    expect(sealed).not.toContain('secret');
    expect(openForSession('session-a', 'key_1', sealed)).toBe('pwr_live_secret');
    expect(openForSession('session-b', 'key_1', sealed)).toBeUndefined();
    expect(openForSession('session-a', 'key_2', sealed)).toBeUndefined();
    expect(openForSession('session-a', 'key_1', 'garbage')).toBeUndefined();
  });
});

describe('sessions', () => {
  let core: CoreDeps;
  beforeAll(async () => {
    core = await createTestCore();
  });
  afterAll(async () => closeTestCore(core));

  it('end after the idle timeout and after the absolute timeout, and are purged', async () => {
    const { accountId } = await createKey(core, 'render');
    let now = 1_000_000;
    const sessions = new SessionManager(core.store, { idleMs: 10_000, absoluteMs: 100_000 }, () => now);
    const idle = await sessions.create(accountId, 0);
    now += 9_000;
    expect(await sessions.load(idle.id)).toMatchObject({ accountId });
    now += 10_001;
    expect(await sessions.load(idle.id)).toBeUndefined();
    expect(await core.store.findSession(hashSessionId(idle.id))).toBeUndefined();

    const busy = await sessions.create(accountId, 0);
    for (let i = 0; i < 12; i++) {
      now += 9_000; // active within the idle timeout each time
      if (now - busy.session.createdAt <= 100_000) expect(await sessions.load(busy.id)).toBeDefined();
    }
    expect(await sessions.load(busy.id)).toBeUndefined();

    const stale = await sessions.create(accountId, 0);
    const fresh = await sessions.create(accountId, 0);
    now += 11_000;
    await sessions.load(fresh.id); // still idle-expired: deleted on load
    const keep = await sessions.create(accountId, 0);
    expect(await sessions.purgeExpired()).toBe(1); // `stale`
    expect(await core.store.findSession(hashSessionId(stale.id))).toBeUndefined();
    expect(await sessions.load(keep.id)).toBeDefined();
    expect(await sessions.load('not-a-session')).toBeUndefined();
  });
});
