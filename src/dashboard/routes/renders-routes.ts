import type { FastifyInstance } from 'fastify';
import { RENDER_LOG_FLUSH_MS, type RenderRecord } from '../../render/index.js';
import { type DashboardContext, requireSignedIn, sendPage, signedInOf, viewerOf } from '../context.js';
import { errorPage } from '../views/error-view.js';
import { pdfStateOf } from '../views/jobs-view.js';
import { jobNotPrintedPage, keyLabelOf, RENDERS_SHOWN, renderPage, rendersPage } from '../views/renders-view.js';

/** The longest search taken (a record keeps 300 characters of a title). */
const MAX_SEARCH_CHARS = 300;

/** The Renders list with these filters, from `before` on when given. */
function rendersHref(f: { problemsOnly: boolean; claimedOnly: boolean; search?: string }, before?: string): string {
  const params = new URLSearchParams();
  if (f.problemsOnly) params.set('problems', '1');
  if (f.claimedOnly) params.set('claims', '1');
  if (f.search) params.set('q', f.search);
  if (before) params.set('before', before);
  const qs = params.toString();
  return qs === '' ? '/renders' : `/renders?${qs}`;
}

/** A render id as the API hands it out (X-Render-ID or a job id); anything else is searched for no further. */
const RENDER_ID = /^(rnd_[0-9a-f]{24}|job_[0-9a-f]{32})$/;
/** The paging cursor: the last row's creation time and id, `1767225600000_rnd_…`. */
const CURSOR = /^(\d{1,15})_((?:rnd|job)_[0-9a-f]{24,32})$/;

/**
 * A sync render's record reaches the store with the render service's next batch, up to a second after
 * the answer (longer on a loaded machine): a page opened from X-Render-ID straight away looks again for
 * this long before it says there is no such render.
 */
const RECORD_WAIT_MS = 3 * RENDER_LOG_FLUSH_MS;
const RECORD_LOOK_EVERY_MS = 200;

/** The Renders page (the account's render log, newest first) and one render's page with its warnings explained. */
export function registerRendersRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core } = ctx;
  const retentionDays = core.config.renderLogRetentionDays;

  /** This account's record of `id`, waiting for the batch still to come when `id` is a sync render's. */
  async function findRecord(id: string, accountId: string): Promise<RenderRecord | undefined> {
    if (!RENDER_ID.test(id)) return undefined;
    const until = Date.now() + (id.startsWith('rnd_') ? RECORD_WAIT_MS : 0);
    for (;;) {
      const record = await core.store.findRenderRecord(id, accountId);
      if (record || Date.now() >= until) return record;
      await new Promise((r) => setTimeout(r, RECORD_LOOK_EVERY_MS));
    }
  }

  app.get('/renders', { preHandler: requireSignedIn }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const accountId = signedIn.account.id;
    const query = request.query as Record<string, unknown>;
    const problemsOnly = query.problems === '1';
    const claimedOnly = query.claims === '1';
    // One search box: a render id leads to its page; any other text is looked for in titles and references.
    const term = (typeof query.q === 'string' ? query.q : typeof query.id === 'string' ? query.id : '').trim();
    let notFound: string | undefined;
    let search: string | undefined;
    if (RENDER_ID.test(term)) {
      if (await findRecord(term, accountId)) return reply.redirect(`/renders/${term}`, 303);
      notFound = term;
    } else if (term !== '') search = term.slice(0, MAX_SEARCH_CHARS);
    const before = typeof query.before === 'string' ? CURSOR.exec(query.before) : null;
    const cursor = before ? { createdAt: Number(before[1]), id: before[2] as string } : undefined;
    const found = await core.store.listRenderRecords(accountId, {
      limit: RENDERS_SHOWN,
      cursor,
      problemsOnly,
      claimedOnly,
      search,
    });
    const filters = { problemsOnly, claimedOnly, search };
    const olderHref = found.next ? rendersHref(filters, `${found.next.createdAt}_${found.next.id}`) : undefined;
    return sendPage(
      reply,
      notFound === undefined ? 200 : 404,
      rendersPage({
        viewer: viewerOf(signedIn),
        rows: found.rows,
        now: Date.now(),
        ...filters,
        newestHref: rendersHref(filters),
        olderHref,
        paged: cursor !== undefined,
        notFound,
        retentionDays,
      }),
    );
  });

  app.get<{ Params: { id: string } }>('/renders/:id', { preHandler: requireSignedIn }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const accountId = signedIn.account.id;
    const { id } = request.params;
    const record = await findRecord(id, accountId);
    // A job's id names its render; the job says what it is printed for, and where its PDF is.
    const job = RENDER_ID.test(id) && id.startsWith('job_') ? await core.store.findJob(id, accountId) : undefined;
    if (!record && job) {
      const facts = { id: job.id, status: job.status, reference: job.reference, createdAt: Number(job.created_at) };
      return sendPage(reply, 200, jobNotPrintedPage(viewerOf(signedIn), facts, Date.now()));
    }
    // Another account's render and no render at all look the same.
    if (!record) {
      const message = `There is no render with this id in your account (renders are kept ${retentionDays} days).`;
      return sendPage(reply, 404, errorPage({ title: 'Render not found', message, viewer: viewerOf(signedIn) }));
    }
    const key = record.keyId === null ? undefined : (await core.keys.list(accountId)).find((k) => k.id === record.keyId);
    return sendPage(
      reply,
      200,
      renderPage({
        viewer: viewerOf(signedIn),
        record,
        keyLabel: key ? keyLabelOf(key.name, key.displayPrefix) : null,
        now: Date.now(),
        job: job ? { reference: job.reference, pdf: pdfStateOf(job, Date.now()) } : undefined,
      }),
    );
  });
}
