/**
 * The render route on a pool of its own, for the tests of what documents declare (PDF profiles,
 * Factur-X, attachments): every render's record is kept, and a loopback server answers attachments.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from '../../src/app/core.js';
import { setRenderErrorHandler } from '../../src/app/render-app.js';
import { createServiceApp } from '../../src/app/service-app.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import { BrowserPool } from '../../src/render/browser-pool.js';
import type { RenderRecord } from '../../src/render/report.js';
import { registerRenderRoutes, sendRenderError } from '../../src/render/routes.js';
import { MAX_BODY_BYTES } from '../../src/render/schema.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

/** A render service with its key, the records of its renders, and a way to stop it all. */
export interface DeclarationsApp {
  app: FastifyInstance;
  key: string;
  records: RenderRecord[];
  /** The record of the render that answered with this X-Render-ID. */
  recordOf(id: unknown): RenderRecord;
  close(): Promise<void>;
}

/** Starts the render route; `allowLoopback` is EGRESS_ALLOW=127.0.0.1/32 (else loopback is refused like any private address). */
export async function startDeclarationsApp(opts: { allowLoopback: boolean }): Promise<DeclarationsApp> {
  const core: CoreDeps = await createTestCore();
  const records: RenderRecord[] = [];
  const app = await createServiceApp({
    service: 'render',
    core,
    requestIdHeader: 'X-Render-ID',
    sendError: sendRenderError,
    bodyLimit: MAX_BODY_BYTES,
  });
  const pool = await BrowserPool.start({
    policy: createEgressPolicy({ allow: opts.allowLoopback ? ['127.0.0.1/32'] : [], lookup: noDns }),
    concurrency: 1,
    queueLimit: 10,
    timeoutMs: 30_000,
    executablePath: core.config.chromiumPath,
  });
  app.addHook('onClose', () => pool.close());
  registerRenderRoutes(app, pool, { record: (r) => records.push(r) });
  setRenderErrorHandler(app);
  const { key } = await createKey(core, 'render');
  return {
    app,
    key,
    records,
    recordOf(id) {
      const found = records.find((r) => r.id === id);
      if (!found) throw new Error(`no record for ${String(id)}`);
      return found;
    },
    async close() {
      await app.close();
      await closeTestCore(core);
    },
  };
}

/** A loopback server answering `files` by path (anything else 404), counting the requests it got. */
export async function startFileServer(files: Record<string, { type: string; body: Buffer | string }>) {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    const file = files[req.url ?? ''];
    if (!file) {
      res.statusCode = 404;
      res.end('not here');
      return;
    }
    res.setHeader('content-type', file.type);
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
