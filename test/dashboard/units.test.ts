import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { html, raw } from '../../src/dashboard/html.js';
import { LoginThrottle } from '../../src/dashboard/login-throttle.js';
import { SessionManager, hashSessionId } from '../../src/dashboard/sessions.js';
import { usageSeries, windowStart } from '../../src/dashboard/usage-series.js';
import { niceCeil, usageChart } from '../../src/dashboard/views/usage-chart.js';
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
  it('lets 5 failures through, then backs off exponentially up to the cap', () => {
    let now = 0;
    const t = new LoginThrottle(undefined, () => now);
    for (let i = 0; i < 4; i++) t.fail('a@x.io', '1.1.1.1');
    expect(t.retryAfterMs('a@x.io', '1.1.1.1')).toBe(0);
    t.fail('A@x.io ', '1.1.1.1'); // same email, other spelling
    expect(t.retryAfterMs('a@x.io', '2.2.2.2')).toBe(15_000);
    now += 15_000;
    expect(t.retryAfterMs('a@x.io', '2.2.2.2')).toBe(0);
    t.fail('a@x.io', '1.1.1.1');
    expect(t.retryAfterMs('a@x.io', '3.3.3.3')).toBe(30_000);
    for (let i = 0; i < 10; i++) t.fail('a@x.io', '1.1.1.1');
    expect(t.retryAfterMs('a@x.io', '3.3.3.3')).toBe(15 * 60_000);
    expect(t.retryAfterMs('b@x.io', '3.3.3.3')).toBe(0);
  });

  it('success clears the email count but not the IP count; quiet time forgets both', () => {
    let now = 0;
    const t = new LoginThrottle({ emailThreshold: 2, ipThreshold: 3, baseDelayMs: 1000, maxDelayMs: 60_000, forgetAfterMs: 10_000 }, () => now);
    t.fail('a@x.io', 'ip');
    t.fail('a@x.io', 'ip');
    expect(t.retryAfterMs('a@x.io', 'other')).toBe(1000);
    t.succeed('a@x.io');
    expect(t.retryAfterMs('a@x.io', 'other')).toBe(0);
    t.fail('b@x.io', 'ip');
    expect(t.retryAfterMs('c@x.io', 'ip')).toBe(1000);
    now += 20_000;
    expect(t.retryAfterMs('c@x.io', 'ip')).toBe(0);
    t.fail('b@x.io', 'ip');
    expect(t.retryAfterMs('c@x.io', 'ip')).toBe(0);
  });
});

describe('usage series and chart', () => {
  const now = Date.parse('2025-03-31T12:00:00Z');
  const rows = [
    { accountId: 'a', service: 'render' as const, day: '2025-03-31', outcome: 'ok' as const, count: 40 },
    { accountId: 'a', service: 'render' as const, day: '2025-03-31', outcome: 'rate_limited' as const, count: 3 },
    { accountId: 'a', service: 'render' as const, day: '2025-03-02', outcome: 'server_error' as const, count: 1 },
    { accountId: 'a', service: 'render' as const, day: '2025-03-01', outcome: 'ok' as const, count: 99 },
    { accountId: 'a', service: 'metadata' as const, day: '2025-03-10', outcome: 'client_error' as const, count: 5 },
  ];

  it('is dense over 30 UTC days and ignores rows outside the window', () => {
    expect(windowStart(now, 30)).toBe('2025-03-02');
    const s = usageSeries(rows, now, 30);
    expect(s.render.days).toHaveLength(30);
    expect(s.render.days[0]!.day).toBe('2025-03-02');
    expect(s.render.days[29]).toEqual({ day: '2025-03-31', counts: { ok: 40, client_error: 0, rate_limited: 3, server_error: 0 }, total: 43 });
    expect(s.render.total).toBe(44);
    expect(s.metadata.totals.client_error).toBe(5);
  });

  it('draws stacked bars with a per-day title and round gridlines', () => {
    expect([niceCeil(0), niceCeil(7), niceCeil(43), niceCeil(101), niceCeil(2400)]).toEqual([4, 10, 50, 200, 2500]);
    const svg = usageChart(usageSeries(rows, now, 30).render).value;
    expect(svg).toContain('<title>Mar 31: 43 requests (OK: 40, Rate limited: 3)</title>');
    expect(svg.match(/<rect class="o-ok"/g)).toHaveLength(1);
    expect(svg.match(/<rect class="o-rate_limited"/g)).toHaveLength(1);
    expect(svg).toContain('>50</text>');
    expect(svg).toContain('aria-label="Requests per day over the last 30 days for the render service: 44 in total."');
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
    const idle = await sessions.create(accountId);
    now += 9_000;
    expect(await sessions.load(idle.id)).toMatchObject({ accountId });
    now += 10_001;
    expect(await sessions.load(idle.id)).toBeUndefined();
    expect(await core.store.findSession(hashSessionId(idle.id))).toBeUndefined();

    const busy = await sessions.create(accountId);
    for (let i = 0; i < 12; i++) {
      now += 9_000; // active within the idle timeout each time
      if (now - busy.session.createdAt <= 100_000) expect(await sessions.load(busy.id)).toBeDefined();
    }
    expect(await sessions.load(busy.id)).toBeUndefined();

    const stale = await sessions.create(accountId);
    const fresh = await sessions.create(accountId);
    now += 11_000;
    await sessions.load(fresh.id); // still idle-expired: deleted on load
    const keep = await sessions.create(accountId);
    expect(await sessions.purgeExpired()).toBe(1); // `stale`
    expect(await core.store.findSession(hashSessionId(stale.id))).toBeUndefined();
    expect(await sessions.load(keep.id)).toBeDefined();
    expect(await sessions.load('not-a-session')).toBeUndefined();
  });
});
