import type { FastifyInstance } from 'fastify';
import { type ApiService, defaultLimit } from '../../config.js';
import { windowUnit } from '../../ratelimit/window.js';
import { type DashboardContext, requireSignedIn, sendPage, signedInOf, viewerOf } from '../context.js';
import { dailyRows, hourlySeries, hourWindowStart, type UsageRow, usageSeries, windowStart } from '../usage-series.js';
import { docsPage } from '../views/docs-view.js';
import { type LimitInfo, type UsageRange, usagePage } from '../views/usage-view.js';

const DAYS = 30;
const HOURS = 24;

/** The usage page (by day or by hour, all keys or one) and the getting-started page. */
export function registerUsageRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core, urls } = ctx;

  app.get('/usage', { preHandler: requireSignedIn }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const { account } = signedIn;
    const query = request.query as Record<string, string | undefined>;
    const range: UsageRange = query.range === '24h' ? '24h' : '30d';
    const now = Date.now();
    // Counters are batched in memory; write this process's pending ones so the chart is current.
    await core.usage.flush();
    const keys = await core.keys.list(account.id);
    // Only the account's own keys can be chosen; anything else shows all keys.
    const key = keys.find((k) => k.id === query.key);
    let rows: UsageRow[];
    if (range === '24h') {
      const perKey = await core.store.keyHourlyUsageSince(account.id, hourWindowStart(now, HOURS));
      rows = perKey.filter((r) => !key || r.keyId === key.id);
    } else if (key) {
      rows = (await core.store.keyUsageSince(account.id, windowStart(now, DAYS))).filter((r) => r.keyId === key.id);
    } else {
      rows = dailyRows(await core.store.usageSince(account.id, windowStart(now, DAYS)));
    }
    const usage = range === '24h' ? hourlySeries(rows, now, HOURS) : usageSeries(rows, now, DAYS);
    const limit = (service: ApiService): LimitInfo => {
      const override = account.limits[service];
      return {
        perWindow: override ?? defaultLimit(core.config, service),
        window: windowUnit(core.config.rateLimitWindowS),
        custom: override !== null,
      };
    };
    const model = {
      viewer: viewerOf(signedIn),
      usage,
      limits: { render: limit('render'), metadata: limit('metadata') },
      range,
      keys,
      key,
      now,
    };
    return sendPage(reply, 200, usagePage(model));
  });

  app.get('/docs', { preHandler: requireSignedIn }, async (request, reply) => {
    return sendPage(reply, 200, docsPage(viewerOf(signedInOf(request)), urls));
  });
}
