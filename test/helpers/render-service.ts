/**
 * The render route on a browser pool of its own, reporting to `recorder`: what render-app.ts wires, less
 * the jobs engine and the configuration, for tests that pick the pool's policy, size and timeout.
 */
import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from '../../src/app/core.js';
import { setRenderErrorHandler } from '../../src/app/render-app.js';
import { createServiceApp } from '../../src/app/service-app.js';
import { BrowserPool, type BrowserPoolOptions } from '../../src/render/pool/browser-pool.js';
import { MAX_BODY_BYTES } from '../../src/render/request/schema.js';
import { registerRenderRoutes, sendRenderError } from '../../src/render/routes.js';
import type { RenderRecorder } from '../../src/report/report.js';

/** Starts the service (not listening: use `inject`, or `listen` on it); closing it closes the pool. */
export async function startRenderService(
  core: CoreDeps,
  pool: Omit<BrowserPoolOptions, 'executablePath'>,
  recorder: RenderRecorder,
): Promise<FastifyInstance> {
  const service = await createServiceApp({
    service: 'render',
    core,
    requestIdHeader: 'X-Render-ID',
    sendError: sendRenderError,
    bodyLimit: MAX_BODY_BYTES,
  });
  const started = await BrowserPool.start({ ...pool, executablePath: core.config.chromiumPath });
  service.addHook('onClose', () => started.close());
  registerRenderRoutes(service, started, recorder);
  setRenderErrorHandler(service);
  return service;
}
