/**
 * The response serializers: the bytes fast-json-stringify writes from the schemas as written, for job,
 * render and metadata answers of every shape; the job object's report entries are the one union left to
 * Ajv; and a new instance's first job answers, their errors included, and its first fetch compile no Ajv check.
 */
import { createRequire } from 'node:module';
import { Type } from '@sinclair/typebox';
import fastJsonStringify from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { serializerSchema } from '../../src/app/response-serializers.js';
import { type JobObject, JobObjectSchema } from '../../src/jobs/job-object.js';
import { MetadataSchema } from '../../src/metadata/routes.js';
import { RenderErrorSchema } from '../../src/render/index.js';
import { RenderObjectSchema } from '../../src/render/log/render-log-routes.js';
import type { ReportEntry } from '../../src/report/report.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { jobRequest, submitJob } from '../jobs/helpers.js';
import { html, type Origin, startOrigin } from '../metadata/origin.js';

type AnySchema = Parameters<typeof fastJsonStringify>[0];
const stock = (schema: unknown) => fastJsonStringify(schema as AnySchema);
const ours = (schema: unknown) => fastJsonStringify(serializerSchema(schema) as AnySchema);

const AT = '2026-12-04T10:00:00.000Z';
const ONE_OF_EACH: ReportEntry[] = [
  { kind: 'resource_blocked', url: 'http://10.0.0.1/a.png', reason: 'private_address', message: 'blocked' },
  { kind: 'resource_failed', url: 'https://cdn.example/a.css', status: 404, message: 'answered 404' },
  { kind: 'resource_failed', url: 'https://cdn.example/b.css', error: 'timeout', message: 'timed out', part: 'parts[2]' },
  { kind: 'font_failed', family: 'Inter', url: null, message: 'no font' },
  { kind: 'script_error', text: 'TypeError: x is undefined', message: 'uncaught' },
  { kind: 'not_ready', text: 'no data', message: 'rejected' },
  { kind: 'printed_while_pending', count: 2, urls: ['https://a.example/1', 'https://a.example/2'], message: 'pending' },
  { kind: 'frames_missed', count: 1, message: 'no frame' },
  { kind: 'unresolved_reference', target: '#fig-9', message: 'no target' },
  { kind: 'conformance', profile: 'PDF/UA-1', clause: '7.3-1', element: 'img[src="logo.png"]', message: 'no alt' },
  { kind: 'active_content', content: 'javascript', count: 3, removed: true, message: 'taken out' },
  { kind: 'truncated', dropped: 12, message: 'more than 100' },
];

const queued: JobObject = {
  id: `job_${'a'.repeat(32)}`,
  status: 'queued',
  reference: null,
  created_at: AT,
  started_at: null,
  finished_at: null,
  attempts: 0,
  error: null,
  pdf: null,
  warnings: [],
  claims: [],
};
const JOBS: JobObject[] = [
  queued,
  { ...queued, status: 'running', reference: 'inv-42', started_at: AT, attempts: 1 },
  {
    ...queued,
    status: 'succeeded',
    started_at: AT,
    finished_at: AT,
    attempts: 1,
    pdf: { bytes: 18_204, pages: 3, url: `/v1/jobs/job_${'a'.repeat(32)}/pdf`, expires_at: AT },
    warnings: ONE_OF_EACH,
    claims: ['PDF/A-3b', 'Factur-X'],
  },
  { ...queued, status: 'failed', finished_at: AT, attempts: 3, error: { code: 'RENDER_TIMEOUT', message: 'took too long' } },
  { ...queued, status: 'canceled', reference: 'été "quoted" \u2028', finished_at: AT },
];

describe('serializerSchema', () => {
  it('writes every shape of the job object byte for byte as the schema as written does', () => {
    const [before, after] = [stock(JobObjectSchema), ours(JobObjectSchema)];
    for (const job of JOBS) expect(after(job)).toBe(before(job));
    expect(JSON.parse(after(JOBS[2]))).toEqual(JOBS[2]);
  });

  it('drops what the schema does not name, as before', () => {
    const leaky = { ...JOBS[2], account_id: 'acc_1', pdf: { ...JOBS[2].pdf, key: 'results/acc_1/x.pdf' } };
    const written = ours(JobObjectSchema)(leaky);
    expect(written).toBe(stock(JobObjectSchema)(leaky));
    expect(written).not.toMatch(/account_id|results\//);
  });

  it('writes the render object, the error body and the metadata answer as before', () => {
    // Its entries pass their kind's fields on as they are (additionalProperties), family and url here.
    const render = {
      id: 'rnd_0123456789abcdef01234567',
      created_at: AT,
      duration_ms: 412,
      source: 'job',
      job_id: `job_${'b'.repeat(32)}`,
      status: 'succeeded',
      error: null,
      pages: 2,
      bytes: 9120,
      warnings: [{ kind: 'font_failed', family: 'Inter', url: null, message: 'no font' }],
      claims: ['PDF/UA-1'],
    };
    expect(ours(RenderObjectSchema)(render)).toBe(stock(RenderObjectSchema)(render));
    const failed = {
      ...render,
      source: 'api',
      job_id: null,
      status: 'failed',
      pages: null,
      bytes: null,
      error: { code: 'X', message: 'y' },
    };
    expect(ours(RenderObjectSchema)(failed)).toBe(stock(RenderObjectSchema)(failed));
    const error = { error: { code: 'RATE_LIMITED', message: 'over the limit' } };
    expect(ours(RenderErrorSchema)(error)).toBe(stock(RenderErrorSchema)(error));
    const metadata = {
      title: 'Example',
      description: null,
      og_title: 'Ex',
      og_description: null,
      og_image: 'https://example.com/og.png',
      og_url: null,
      canonical_url: 'https://example.com/',
      favicon_url: 'https://example.com/favicon.ico',
    };
    expect(ours(MetadataSchema)(metadata)).toBe(stock(MetadataSchema)(metadata));
    expect(ours(MetadataSchema)(metadata)).toBe(JSON.stringify(metadata));
  });

  it('leaves the report entry union, and only it, to Ajv in the job object', () => {
    const rewritten = JSON.stringify(serializerSchema(JobObjectSchema));
    expect(rewritten.match(/"anyOf"/g)).toHaveLength(1);
    const { properties } = serializerSchema(JobObjectSchema) as { properties: Record<string, Record<string, unknown>> };
    expect((properties.warnings.items as { anyOf: unknown[] }).anyOf).toHaveLength(11);
    expect(properties.status).toEqual({ type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'canceled'] });
    expect(properties.pdf.nullable).toBe(true);
    expect(properties.pdf.type).toBe('object');
  });

  it('rewrites string literals and T | null, innermost first; leaves other unions; never changes its argument', () => {
    const letters = Type.Union([Type.Literal('a'), Type.Literal('b')], { description: 'd' });
    expect(serializerSchema(letters)).toEqual({ description: 'd', type: 'string', enum: ['a', 'b'] });
    expect(serializerSchema(Type.Union([letters, Type.Null()]))).toEqual({
      description: 'd',
      type: 'string',
      enum: ['a', 'b'],
      nullable: true,
    });
    const left = [
      Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
      Type.Union([Type.String(), Type.Integer()]),
      Type.Union([Type.Literal(1), Type.Literal(2)]),
      Type.Union([Type.Literal('a'), Type.Literal(true)]),
      Type.Union([Type.String(), Type.Integer(), Type.Null()]),
      Type.Union([Type.Ref('Shared'), Type.Null()]),
    ];
    for (const schema of left) expect(serializerSchema(schema)).toEqual(JSON.parse(JSON.stringify(schema)));
    const before = JSON.stringify(JobObjectSchema);
    serializerSchema(JobObjectSchema);
    expect(JSON.stringify(JobObjectSchema)).toBe(before);
  });
});

/** fast-json-stringify's own Ajv, the one it compiles a union's branches with on first use, watched (not replaced). */
function watchAjvCompiles() {
  const Ajv = createRequire(createRequire(import.meta.url).resolve('fast-json-stringify'))('ajv');
  return vi.spyOn(Ajv.prototype, 'getSchema');
}

describe('a new instance', () => {
  let core: CoreDeps;
  let render: FastifyInstance;
  let metadata: FastifyInstance;
  let origin: Origin;
  let key: string;
  let metadataKey: string;

  beforeAll(async () => {
    core = await createTestCore({ RENDER_RATE_LIMIT: '1000', EGRESS_ALLOW: '127.0.0.1/32', METADATA_CACHE_TTL_S: '0' });
    render = await buildRenderApp(core, { startJobWorker: false });
    metadata = await buildMetadataApp(core);
    key = (await createKey(core, 'render')).key;
    metadataKey = (await createKey(core, 'metadata')).key;
    origin = await startOrigin(html('<title>First</title><meta property="og:title" content="OG first">'));
    await Promise.all([render.ready(), metadata.ready()]);
  }, 60_000);
  afterAll(async () => {
    await render?.close();
    await metadata?.close();
    await origin?.close();
    if (core) await closeTestCore(core);
  });

  it('answers its first job submit, read, list, cancel and errors without compiling an Ajv check', async () => {
    const compiles = watchAjvCompiles();
    try {
      const submitted = await submitJob(render, key, { html: '<p>first</p>', reference: 'first' });
      expect(submitted.statusCode).toBe(202);
      const { id } = submitted.json();
      const read = await jobRequest(render, key, 'GET', `/v1/jobs/${id}`);
      expect(read.json()).toEqual(submitted.json());
      const list = await jobRequest(render, key, 'GET', '/v1/jobs');
      expect(list.json().data.map((j: JobObject) => j.id)).toEqual([id]);
      const canceled = await jobRequest(render, key, 'DELETE', `/v1/jobs/${id}`);
      expect(canceled.json().status).toBe('canceled');
      const missing = await jobRequest(render, key, 'GET', `/v1/jobs/job_${'0'.repeat(32)}`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('NOT_FOUND');
      const invalid = await submitJob(render, key, { html: 42 });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json().error.code).toBe('INVALID_REQUEST');
      expect(compiles).not.toHaveBeenCalled();
    } finally {
      compiles.mockRestore();
    }
  });

  it('answers its first fetch, eight fields of string or null, without compiling an Ajv check', async () => {
    const compiles = watchAjvCompiles();
    try {
      const res = await metadata.inject({
        url: `/v1/fetch?url=${encodeURIComponent(`${origin.base}/`)}`,
        headers: { 'x-api-key': metadataKey },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        title: 'First',
        description: null,
        og_title: 'OG first',
        og_description: null,
        og_image: null,
        og_url: null,
        canonical_url: null,
        favicon_url: `${origin.base}/favicon.ico`,
      });
      expect(compiles).not.toHaveBeenCalled();
    } finally {
      compiles.mockRestore();
    }
  });
});
