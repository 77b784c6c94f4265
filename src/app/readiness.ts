/**
 * Liveness and readiness: `GET /v1/health` answers while the process runs; `GET /v1/ready` runs every
 * named check (the store's, and what the service adds: Chromium) within 2 s each and is 503 while any fails.
 */
import { Type } from '@sinclair/typebox';
import type { ServiceApp } from '../service-app-type.js';
import { VERSION } from '../version.js';
import { withTimeout } from '../with-timeout.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Adds a named check to `GET /v1/ready` (liveness stays `GET /v1/health`). */
    addReadinessCheck: (name: string, check: () => Promise<void>) => void;
    /** Adds a field to `GET /v1/ready`'s body that informs without deciding readiness (the render service's `fonts`). */
    addReadinessDetail: (name: string, detail: () => unknown) => void;
  }
}

const HealthSchema = Type.Object(
  {
    status: Type.Literal('healthy'),
    version: Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$', examples: ['1.0.0'] }),
  },
  { additionalProperties: false },
);

const READY_TIMEOUT_MS = 2000;

/** Serves `GET /v1/health` and `GET /v1/ready`, the latter starting with the store's check. */
export function registerHealthAndReadiness(app: ServiceApp, store: { ping(): Promise<void> }): void {
  app.get(
    '/v1/health',
    {
      schema: {
        summary: 'Service status and version (no authentication)',
        tags: ['health'],
        // 503: the service app's onRequest hook answers every route so while the service drains.
        response: { 200: HealthSchema, 503: { description: 'The instance is shutting down (Retry-After set).' } },
      },
    },
    async () => ({ status: 'healthy' as const, version: VERSION }),
  );

  const readinessChecks = new Map<string, () => Promise<void>>([['store', () => store.ping()]]);
  app.decorate('addReadinessCheck', (name: string, check: () => Promise<void>) => void readinessChecks.set(name, check));
  const readinessDetails = new Map<string, () => unknown>();
  app.decorate('addReadinessDetail', (name: string, detail: () => unknown) => void readinessDetails.set(name, detail));
  app.get('/v1/ready', { schema: { hide: true } as object }, async (_request, reply) => {
    const results = await Promise.all(
      [...readinessChecks].map(async ([name, check]) => {
        try {
          await withTimeout(check(), READY_TIMEOUT_MS);
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, `failing: ${(err as Error).message}`] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    const details = Object.fromEntries([...readinessDetails].map(([name, detail]) => [name, detail()]));
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(results), ...details });
  });
}
