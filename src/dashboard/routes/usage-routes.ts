import type { FastifyInstance } from 'fastify';
import { defaultLimit } from '../../app/core.js';
import type { ApiService } from '../../config.js';
import { type DashboardContext, requireSignedIn, sendPage, viewerOf } from '../context.js';
import { usageSeries, windowStart } from '../usage-series.js';
import { docsPage } from '../views/docs-view.js';
import { type LimitInfo, usagePage } from '../views/usage-view.js';

const DAYS = 30;

/** The usage page and the getting-started page. */
export function registerUsageRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core, urls } = ctx;

  app.get('/usage', { preHandler: requireSignedIn }, async (request, reply) => {
    const { account } = request.signedIn!;
    const now = Date.now();
    // Counters are batched in memory; write this process's pending ones so the chart is current.
    await core.usage.flush();
    const rows = await core.store.usageSince(account.id, windowStart(now, DAYS));
    const limit = (service: ApiService): LimitInfo => {
      const override = account.limits[service];
      return { perMinute: override ?? defaultLimit(core.config, service), custom: override !== null };
    };
    const model = { viewer: viewerOf(request.signedIn!), usage: usageSeries(rows, now, DAYS), limits: { render: limit('render'), metadata: limit('metadata') }, days: DAYS };
    return sendPage(reply, 200, usagePage(model));
  });

  app.get('/docs', { preHandler: requireSignedIn }, async (request, reply) => {
    return sendPage(reply, 200, docsPage(viewerOf(request.signedIn!), urls));
  });
}
