/**
 * The details a client meets around the render report: a cancel or a read with `Content-Type:
 * application/json` and no body works (client wrappers send that header on every request), strict
 * handling is said even when nothing went wrong and survives an unclosed quote, every /openapi.json
 * passes a real OpenAPI validator and documents Prefer, and headers too large answer in the service's
 * own error shape.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { waitForJob } from '../jobs/helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' });
  app = await buildRenderApp(core, { lookup: noDns });
  ({ key } = await createKey(core, 'render'));
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

const json = { 'content-type': 'application/json' };

describe('an empty body, whatever its Content-Type', () => {
  it('DELETE /v1/jobs/{id} with Content-Type: application/json and no body cancels the job', async () => {
    const submitted = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { authorization: `Bearer ${key}`, ...json },
      // Never ready: the job is running or queued when it is canceled.
      payload: JSON.stringify({ html: '<p>waits</p><script>window.pageworksReady = false</script>' }),
    });
    expect(submitted.statusCode).toBe(202);
    const id = submitted.json().id;
    const read = await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: { authorization: `Bearer ${key}`, ...json } });
    expect(read.statusCode, read.body).toBe(200);
    const cancel = await app.inject({
      method: 'DELETE',
      url: `/v1/jobs/${id}`,
      headers: { authorization: `Bearer ${key}`, ...json },
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(cancel.json()).toMatchObject({ id, status: 'canceled' });
  });

  it('a DELETE with a JSON body that is not empty is still read as JSON (and refused when malformed)', async () => {
    const res = await app.inject({
      method: 'DELETE',
      url: '/v1/jobs/job_nope',
      headers: { authorization: `Bearer ${key}`, ...json },
      payload: '{"oops"',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_REQUEST');
  });
});

describe('Prefer: handling=strict', () => {
  it('a strict render with no warning says Preference-Applied', async () => {
    const res = await postRender(app, key, { html: '<p>clean</p>' }, { prefer: 'handling=strict' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('0');
    expect(res.headers['preference-applied']).toBe('handling=strict');
  });

  it("a strict job's PDF carries the headers of a strict render: Preference-Applied and X-Render-Warnings: 0", async () => {
    const submitted = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { authorization: `Bearer ${key}`, ...json, prefer: 'handling=strict' },
      payload: JSON.stringify({ html: '<p>clean</p>' }),
    });
    expect(submitted.statusCode).toBe(202);
    expect(submitted.headers['preference-applied']).toBe('handling=strict');
    const job = await waitForJob(app, key, submitted.json().id);
    expect(job.status).toBe('succeeded');
    const pdf = await app.inject({ method: 'GET', url: `/v1/jobs/${job.id}/pdf`, headers: { authorization: `Bearer ${key}` } });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['preference-applied']).toBe('handling=strict');
    expect(pdf.headers['x-render-warnings']).toBe('0');
  });

  it('an unclosed quote still asks for strict handling', async () => {
    const html = '<p>throws</p><script>throw new Error("x")</script>';
    for (const prefer of ['handling="strict', 'respond-async, handling="strict']) {
      const res = await postRender(app, key, { html }, { prefer });
      expect(res.statusCode, prefer).toBe(422);
      expect(res.json().error.code).toBe('RENDER_INCOMPLETE');
      expect(res.headers['preference-applied']).toBe('handling=strict');
    }
  });
});

describe('/openapi.json', () => {
  it('the render and metadata documents pass an OpenAPI validator, X-Render-Warnings and Prefer included', async () => {
    const metadata = await buildMetadataApp(core, { lookup: noDns });
    try {
      for (const service of [app, metadata]) {
        const doc = (await service.inject({ method: 'GET', url: '/openapi.json' })).json();
        const result = await new Validator().validate(doc);
        expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
        expect(result.valid).toBe(true);
      }
    } finally {
      await metadata.close();
    }
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const render = doc.paths['/v1/render'].post;
    expect(render.responses['200'].headers['X-Render-Warnings'].schema).toMatchObject({ type: 'integer', minimum: 0 });
    for (const op of [render, doc.paths['/v1/jobs'].post]) {
      const prefer = op.parameters.find((p: { in: string; name: string }) => p.in === 'header' && /^prefer$/i.test(p.name));
      expect(prefer?.schema?.type).toBe('string');
      expect(prefer.description).toContain('handling=strict');
    }
  });
});

describe('headers too large', () => {
  it('answer 431 in the service error shape', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const res = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/v1/render', method: 'POST', headers: { 'x-padding': 'a'.repeat(40_000) } },
        (r) => {
          let body = '';
          r.on('data', (d) => (body += d));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, type: String(r.headers['content-type']), body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(res.status).toBe(431);
    expect(res.type).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual({
      error: { code: 'HEADERS_TOO_LARGE', message: expect.stringMatching(/header/i) },
    });
  });
});
