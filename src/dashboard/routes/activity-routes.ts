import type { FastifyInstance } from 'fastify';
import { type DashboardContext, requireSignedIn, sendPage, signedInOf, viewerOf } from '../context.js';
import { activityPage } from '../views/activity-view.js';

/** The activity log page: newest first, 50 entries a page. */
export function registerActivityRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core } = ctx;

  app.get('/activity', { preHandler: requireSignedIn }, async (request, reply) => {
    const raw = String((request.query as Record<string, unknown>).page ?? '1');
    const pageNumber = /^\d{1,6}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 1;
    const signedIn = signedInOf(request);
    const { account } = signedIn;
    const found = await core.activity.page(account.id, pageNumber);
    return sendPage(
      reply,
      200,
      activityPage({ viewer: viewerOf(signedIn), ...found, page: pageNumber, retentionDays: core.activity.retentionDays }),
    );
  });
}
