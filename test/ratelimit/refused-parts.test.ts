/**
 * A request the rate limit refuses spends nothing of the account's window: an assembly (a job or
 * `POST /v1/assemble`) whose parts are over what the window has left is 429 and leaves the window as it
 * was, so the account's next one-part request is answered. A one-render request over the limit is
 * refused with Retry-After as ever. On the in-memory limiter and on Redis.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { postAssemble } from '../assemble/helpers.js';
import { REDIS_URL } from '../helpers/backends.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { expectJobError, submitJob } from '../jobs/helpers.js';

const parts = (n: number) => ({ parts: Array.from({ length: n }, () => ({ html: '<p>p</p>' })) });

const backends: Array<{ name: string; enabled: boolean; env: Record<string, string> }> = [
  { name: 'memory', enabled: true, env: {} },
  { name: 'redis', enabled: Boolean(REDIS_URL), env: { REDIS_URL: REDIS_URL ?? '' } },
];

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`refused requests on the ${backend.name} limiter`, () => {
    let core: CoreDeps;
    let app: FastifyInstance;

    beforeAll(async () => {
      core = await createTestCore(backend.env);
      app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
    }, 60_000);

    afterAll(async () => {
      await app?.close();
      if (core) await closeTestCore(core);
    });

    it('a 150-part job over the default 120 a minute is 429 and spends none of the window: a one-part job is accepted after it', async () => {
      const { key } = await createKey(core, 'render');
      const first = await submitJob(app, key, parts(1));
      expect(first.statusCode, first.body).toBe(202);
      expect(first.headers.ratelimit).toMatch(/^"render";r=119;t=\d+$/);

      const refused = await submitJob(app, key, parts(150));
      expectJobError(
        refused,
        429,
        'RATE_LIMITED',
        /^150 parts count as 150 renders: over the limit of 120 per window; retry in \d+ s$/,
      );
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // The refused request itself was let in (one request, as any answer is), its parts were not counted.
      expect(refused.headers.ratelimit).toMatch(/^"render";r=118;t=\d+$/);

      const next = await submitJob(app, key, parts(1));
      expect(next.statusCode, next.body).toBe(202);
      expect(next.headers.ratelimit).toMatch(/^"render";r=117;t=\d+$/);
    });

    it('POST /v1/assemble over what the window has left is 429 and spends none of it: a two-part assembly is made after it', async () => {
      const { key, accountId } = await createKey(core, 'render');
      await core.accounts.setLimit(accountId, 'render', 10);
      const first = await postAssemble(app, key, parts(1));
      expect(first.statusCode, first.body.slice(0, 300)).toBe(200);
      expect(first.headers.ratelimit).toMatch(/^"render";r=9;t=\d+$/);

      // 20 parts on a window already used: more than it can take (on an untouched one they would take it all).
      const refused = await postAssemble(app, key, parts(20));
      expectJobError(
        refused,
        429,
        'RATE_LIMITED',
        /^20 parts count as 20 renders: over the limit of 10 per window; retry in \d+ s$/,
      );
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers.ratelimit).toMatch(/^"render";r=8;t=\d+$/);

      const made = await postAssemble(app, key, parts(2));
      expect(made.statusCode, made.body.slice(0, 300)).toBe(200);
      expect(made.headers['content-type']).toBe('application/pdf');
      expect(made.headers.ratelimit).toMatch(/^"render";r=6;t=\d+$/);
    }, 60_000);

    it('a one-render request over the limit is refused with Retry-After, as before', async () => {
      const { key, accountId } = await createKey(core, 'render');
      await core.accounts.setLimit(accountId, 'render', 2);
      expect((await submitJob(app, key, { html: '<p>1</p>' })).statusCode).toBe(202);
      expect((await submitJob(app, key, { html: '<p>2</p>' })).statusCode).toBe(202);
      for (let i = 0; i < 2; i++) {
        const refused = await submitJob(app, key, { html: '<p>3</p>' });
        expectJobError(refused, 429, 'RATE_LIMITED', /^rate limit of 2 render requests per minute exceeded; retry in \d+ s$/);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
        expect(refused.headers.ratelimit).toMatch(/^"render";r=0;t=\d+$/);
      }
    });
  });
}
