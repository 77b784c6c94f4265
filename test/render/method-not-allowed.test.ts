/**
 * A method a route does not have is 405 METHOD_NOT_ALLOWED with `Allow` on every route of the render
 * service, those with a path parameter (`/v1/renders/{id}`, `/v1/jobs/{id}`, …) as much as the fixed
 * ones; a path no route has is 404. Checked before the key, as the fixed routes' 405 always was.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  ({ key } = await createKey(core, 'render'));
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

const RENDER_ID = 'rnd_0123456789abcdef01234567';
const JOB_ID = 'job_0123456789abcdef0123456789abcdef';
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const call = (method: Method, url: string) => app.inject({ method, url, headers: { authorization: `Bearer ${key}` } });

function expectNotAllowed(res: LightMyRequestResponse, method: string, path: string, allow: string): void {
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(405);
  expect(res.headers.allow).toBe(allow);
  expect(res.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);
  expect(res.json()).toEqual({
    error: { code: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on ${path} (allowed: ${allow})` },
  });
}

describe('405 METHOD_NOT_ALLOWED with Allow on routes with a path parameter', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'] as const)('%s /v1/renders/{id}', async (method) => {
    expectNotAllowed(await call(method, `/v1/renders/${RENDER_ID}`), method, `/v1/renders/${RENDER_ID}`, 'GET, HEAD');
  });

  it.each([
    ['PUT', `/v1/jobs/${JOB_ID}`, 'GET, HEAD, DELETE'],
    ['POST', `/v1/jobs/${JOB_ID}`, 'GET, HEAD, DELETE'],
    ['PATCH', `/v1/jobs/${JOB_ID}`, 'GET, HEAD, DELETE'],
    ['POST', `/v1/jobs/${JOB_ID}/pdf`, 'GET, HEAD'],
    ['DELETE', `/v1/jobs/${JOB_ID}/pdf`, 'GET, HEAD'],
    ['GET', '/v1/certificates/crt_0123456789abcdef', 'DELETE'],
    ['PUT', '/v1/certificates/crt_0123456789abcdef', 'DELETE'],
    ['POST', '/docs/static/index.css', 'GET, HEAD'],
  ] as const)('%s %s', async (method, path, allow) => {
    expectNotAllowed(await call(method, path), method, path, allow);
  });

  it('without a key too, as on a fixed route', async () => {
    const res = await app.inject({ method: 'DELETE', url: `/v1/renders/${RENDER_ID}` });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('the query is not part of the path the message quotes', async () => {
    expectNotAllowed(await call('PUT', `/v1/jobs/${JOB_ID}?x=1`), 'PUT', `/v1/jobs/${JOB_ID}`, 'GET, HEAD, DELETE');
  });
});

describe('what stays as it was', () => {
  it('a fixed route: POST /v1/health is 405, PUT /v1/render is 405', async () => {
    expectNotAllowed(await call('POST', '/v1/health'), 'POST', '/v1/health', 'GET, HEAD');
    expectNotAllowed(await call('PUT', '/v1/render'), 'PUT', '/v1/render', 'POST');
  });

  it('a path no route has is 404, a parameter standing for more than one segment included', async () => {
    for (const path of [`/v1/renders/${RENDER_ID}/extra`, '/v1/renders/', '/v1/jobs/a/b/pdf', '/v2/renders/x']) {
      const res = await call('POST', path);
      expect(res.statusCode, path).toBe(404);
      expect(res.headers.allow).toBeUndefined();
      expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: `not found: POST ${path}` } });
    }
  });
});
