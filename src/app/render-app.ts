/**
 * The render service app: the common service base plus the browser pool, POST /v1/render, the render
 * jobs (routes and a worker), OpenAPI (/openapi.json, /docs) and error handlers that give every
 * failure the render shape.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { pdfSteps, registerAssembleRoutes } from '../assemble/index.js';
import { registerCertificateRoutes } from '../certificates/routes.js';
import { jobSlots } from '../config.js';
import { invalid, RenderError } from '../errors.js';
import { registerJobRoutes } from '../jobs/routes.js';
import { type JobAssemblyDeps, JobsRuntime } from '../jobs/runtime.js';
import { createPinnedAgent } from '../net/pinned-agent.js';
import { createEgressPolicy, type EgressPolicy, type LookupFn } from '../net/policy.js';
import { pdfEngine } from '../pdf/engine.js';
import { qpdfAvailable, rfc3161Timestamper } from '../pdf/index.js';
import {
  BrowserPool,
  checkFontCoverage,
  createRenderMetrics,
  describeCoverage,
  fcListRunner,
  MAX_BODY_BYTES,
  RenderLog,
  type RenderRecorder,
  registerRenderLogRoutes,
  registerRenderRoutes,
  sendRenderError,
} from '../render/index.js';
import type { ServiceApp } from '../service-app-type.js';
import type { CoreDeps } from './core.js';
import { createServiceApp } from './service-app.js';

/**
 * Test seams: a resolver for the egress policy (tests must never ask real DNS), the `fc-list`
 * executable, and whether the job worker starts claiming with the app (a test may hold it to see
 * jobs queued, then call `app.jobs.startWorker()`).
 */
export interface RenderAppOptions {
  lookup?: LookupFn;
  fcList?: string;
  startJobWorker?: boolean;
  /** The job worker's idle poll interval (a test shows Redis wakes it long before the poll would). */
  jobPollMs?: number;
  /** Where every render and job's final attempt is reported (the render log); default: nowhere. */
  recorder?: RenderRecorder;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The render jobs of this process (render service and render-worker). */
    jobs: JobsRuntime;
    /** Where this process's renders are recorded (GET /v1/renders/{id}, the dashboard's Renders page). */
    renderLog: RenderLog;
  }
}

/** The 413 of a body over its route's limit: that limit, and what the route says its body holds at most. */
function bodyTooLarge(request: FastifyRequest): RenderError {
  const { bodyLimit, config } = request.routeOptions;
  const holds = config.bodyHolds === undefined ? '' : ` (${config.bodyHolds})`;
  return new RenderError('PAYLOAD_TOO_LARGE', `body larger than ${bodyLimit} bytes cannot hold a valid request${holds}`);
}

/** Maps Fastify's own errors (body parsing, limits) onto the render error table. */
function fromFastify(error: FastifyError, request: FastifyRequest): RenderError {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new RenderError('UNSUPPORTED_MEDIA_TYPE', 'body must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return bodyTooLarge(request);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalid('body: empty; expected a JSON object');
    default:
      break;
  }
  if (error.statusCode === 400 || error instanceof SyntaxError) {
    return invalid(`body: not valid JSON (${error.message.slice(0, 120)})`);
  }
  if (error.statusCode === 413) return new RenderError('PAYLOAD_TOO_LARGE', 'body too large');
  if (error.statusCode === 415) return new RenderError('UNSUPPORTED_MEDIA_TYPE', 'body must be application/json');
  return new RenderError('INTERNAL_ERROR', 'internal error', undefined, { cause: error });
}

/**
 * What every render process runs: the browser pool (with its metrics and readiness check), the font
 * check and the jobs runtime, closed in order with the app (the worker finishes or gives back its
 * jobs, then Chromium goes). Used by the render service and by the render-worker service.
 */
export async function startRenderEngine(
  app: ServiceApp,
  core: CoreDeps,
  opts: RenderAppOptions = {},
  role: 'render' | 'render-worker' = 'render',
): Promise<{ pool: BrowserPool; jobs: JobsRuntime; policy: EgressPolicy; renderLog: RenderLog; assembly: JobAssemblyDeps }> {
  const { config } = core;
  const slotsForJobs = jobSlots(config, role);
  const policy = createEgressPolicy({ allow: config.egressAllow, lookup: opts.lookup });
  const renderMetrics = createRenderMetrics(app.metrics.registry);
  // Asked while Chromium starts; the installed fonts do not change under a running service.
  const fontCoverage = checkFontCoverage(fcListRunner(opts.fcList));
  // Said once at start-up rather than on the first assembly that needs it.
  void qpdfAvailable().then((found) => {
    if (!found)
      core.log.warn(
        'qpdf is not installed: assembling PDFs laid out otherwise than Chromium writes them, and protecting PDFs, fail until it is (apt-get install -y qpdf)',
      );
  });
  const pool = await BrowserPool.start({
    policy,
    concurrency: config.renderConcurrency,
    queueLimit: config.renderQueueLimit,
    timeoutMs: config.renderTimeoutMs,
    idleMaxMs: config.renderIdleMaxMs,
    executablePath: config.chromiumPath,
    maxRendersPerBrowser: config.renderRecycleAfter,
    memoryLimitBytes: config.renderMaxBrowserRssMb * 1024 * 1024,
    log: core.log.child({ service: 'render', component: 'browser-pool' }),
    events: renderMetrics,
  });
  renderMetrics.watch(pool);
  // Assemblies and certificate uploads find their PDF workers started.
  pdfEngine().warm();
  const renderLog = new RenderLog({
    store: core.store,
    retentionDays: config.renderLogRetentionDays,
    accountBytes: config.renderLogAccountKib * 1024,
    log: core.log.child({ service: 'render', component: 'render-log' }),
    registry: app.metrics.registry,
  });
  app.decorate('renderLog', renderLog);
  // URL parts of assemblies (sync and jobs) are fetched through the egress policy on an agent of their own.
  const partAgent = createPinnedAgent({ connectTimeoutMs: 10_000 });
  // A signature gets a timestamp (PAdES B-T) when SIGN_TSA_URL names an authority, reached through the egress policy.
  const timestamp = config.signTsaUrl ? rfc3161Timestamper(config.signTsaUrl, policy, partAgent) : undefined;
  const assembly: JobAssemblyDeps = {
    policy,
    agent: partAgent,
    fetchTimeoutMs: config.renderTimeoutMs,
    maxBytes: config.assembleMaxBytes,
    steps: pdfSteps({ timestamp }),
    signerFor: (accountId, certificateId) => core.certificates.signerFor(accountId, certificateId),
  };
  const jobs = JobsRuntime.start({
    assembly,
    core,
    pool,
    jobSlots: slotsForJobs,
    registry: app.metrics.registry,
    log: core.log.child({ service: 'render', component: 'jobs' }),
    // RENDER_WORKER_CONCURRENCY=0: this process serves the API alone and claims nothing.
    startWorker: slotsForJobs > 0 && opts.startJobWorker !== false,
    policy,
    pollMs: opts.jobPollMs,
    recorder: opts.recorder ?? renderLog,
  });
  app.decorate('jobs', jobs);
  // Shutdown has one deadline, the render timeout after the signal: nothing is claimed from the first
  // moment (preClose runs before the HTTP drain), sync renders and jobs in flight finish side by side,
  // and whatever still runs at the deadline ends (sync: 503, jobs: back to the queue, attempt uncounted).
  let drainDeadline: number | undefined;
  app.addHook('preClose', async () => {
    drainDeadline = Date.now() + config.renderTimeoutMs;
    jobs.stopClaiming();
    pool.drainBy(drainDeadline);
  });
  // onClose runs once the requests have drained: the jobs in flight finish or go back to the queue,
  // then usage, last-used times and the render log (the records of those last jobs too) are written,
  // all before Chromium closes, since closing it can take seconds and an orchestrator's SIGKILL may come
  // during it; the store closes after this.
  app.addHook('onClose', async () => {
    await jobs.stop(Math.max(0, (drainDeadline ?? Date.now() + config.renderTimeoutMs) - Date.now()));
    await Promise.all([core.usage.flush(), core.lastUsed.flush(), renderLog.close(), partAgent.close()]);
    await pool.close();
  });
  // Not ready while Chromium is down or restarting: a load balancer sends renders elsewhere meanwhile.
  app.addReadinessCheck('chromium', async () => {
    const reason = pool.unavailable;
    if (reason !== undefined) throw new Error(reason);
  });

  // Which browser prints (the headless shell, or full Chromium as the fallback): informs, never decides readiness.
  app.addReadinessDetail('browser', () => pool.browser ?? null);

  // A script without a font still renders (as empty boxes): worth a warning and a line in /v1/ready, not a 503.
  const fonts = await fontCoverage;
  const fontLog = core.log.child({ service: 'render', component: 'fonts' });
  if (fonts.missing.length === 0) fontLog.info({ missing: [] }, describeCoverage(fonts));
  else fontLog.warn({ missing: fonts.missing }, describeCoverage(fonts));
  app.addReadinessDetail('fonts', () => fonts);
  return { pool, jobs, policy, renderLog, assembly };
}

/** The render service's error handler: every failure in the render shape. */
export function setRenderErrorHandler(app: ServiceApp): void {
  app.setErrorHandler(async (error: FastifyError | RenderError, request, reply) => {
    const failure = error instanceof RenderError ? error : fromFastify(error, request);
    if (failure.status >= 500) request.log.error({ err: failure.cause ?? failure, code: failure.code }, 'render request failed');
    else request.log.info({ code: failure.code, reason: failure.message }, 'render request refused');
    if (failure.retryAfterS !== undefined) reply.header('Retry-After', String(failure.retryAfterS));
    return sendRenderError(reply, failure.status, failure.code, failure.message);
  });
}

/** Builds the render service (Chromium launched and warmed before this resolves). */
export async function buildRenderApp(core: CoreDeps, opts: RenderAppOptions = {}): Promise<FastifyInstance> {
  const { config } = core;
  const app = await createServiceApp({
    service: 'render',
    core,
    requestIdHeader: 'X-Render-ID',
    sendError: sendRenderError,
    bodyLimit: MAX_BODY_BYTES,
    openapi: {
      title: 'Pageworks render service',
      description: 'HTML in, PDF out: at once (POST /v1/render) or as a queued job (POST /v1/jobs).',
      serverUrl: config.renderPublicUrl,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A render key (pwr_live_…)' } },
      requestIdDescription:
        "This answer's id (rnd_ and 24 hex characters; a render's is its id at GET /v1/renders/{id}): quote it when asking for support.",
    },
  });
  // Only JSON bodies: without this, text/plain would be parsed and fail validation as a 400, not a 415.
  app.removeContentTypeParser('text/plain');

  const { pool, jobs, policy, renderLog, assembly } = await startRenderEngine(app, core, opts);
  registerRenderRoutes(app, pool, opts.recorder ?? renderLog);
  registerAssembleRoutes(app, {
    ...assembly,
    pool,
    width: pool.concurrency,
    maxParts: config.assembleMaxParts,
    recorder: opts.recorder ?? renderLog,
  });
  registerJobRoutes(app, { queue: jobs.queue, policy, publicUrl: config.renderPublicUrl, signerFor: assembly.signerFor });
  registerCertificateRoutes(app, core.certificates);
  registerRenderLogRoutes(app, {
    renderLog,
    retentionDays: config.renderLogRetentionDays,
    findJob: (id, accountId) => core.store.findJob(id, accountId),
  });
  setRenderErrorHandler(app);
  return app;
}
