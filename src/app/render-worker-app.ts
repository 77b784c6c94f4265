/**
 * The render-worker service: works render jobs (Chromium) and answers only `/v1/health`, `/v1/ready`
 * and `/metrics` on RENDER_PORT, so more render capacity drains one shared queue with no public API.
 */
import type { FastifyInstance } from 'fastify';
import { sendRenderError } from '../render/index.js';
import type { CoreDeps } from './core.js';
import { type RenderAppOptions, setRenderErrorHandler, startRenderEngine } from './render-app.js';
import { createServiceApp } from './service-app.js';

/** Builds the render-worker service (Chromium launched and the worker claiming before this resolves). */
export async function buildRenderWorkerApp(core: CoreDeps, opts: RenderAppOptions = {}): Promise<FastifyInstance> {
  const app = await createServiceApp({
    service: 'render',
    metricsLabel: 'render-worker',
    core,
    requestIdHeader: 'X-Render-ID',
    sendError: sendRenderError,
  });
  await startRenderEngine(app, core, opts, 'render-worker');
  setRenderErrorHandler(app);
  return app;
}
