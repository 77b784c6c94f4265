/**
 * The render request's fuzz properties, shared by `npm test` (fixed seed) and `npm run bench -- fuzz`: any
 * body, content type or option values sent to POST /v1/render get a PDF or an answer in the render error
 * shape with its table status, never a 500; the dimension parser and the print-parameter rules either
 * return finite sizes or refuse with INVALID_REQUEST.
 */

import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { RENDER_ERRORS, RenderError } from '../../src/errors.js';
import { PAGE_FORMATS, parseDimension, type RenderOptions, toPrintParams } from '../../src/render/request/options.js';
import { validateRenderRequest } from '../../src/render/request/schema.js';

/** Throws unless the answer is a PDF or a well-formed render error whose status matches its code; never a 500. */
export function assertRenderAnswer(res: LightMyRequestResponse): void {
  if (res.statusCode === 500) throw new Error(`500: ${res.body.slice(0, 300)}`);
  if (res.statusCode === 200) {
    if (!String(res.headers['content-type']).startsWith('application/pdf')) throw new Error('200 without a PDF content type');
    if (res.rawPayload.subarray(0, 5).toString() !== '%PDF-') throw new Error('200 without a PDF');
    return;
  }
  if (!String(res.headers['content-type']).startsWith('application/json')) throw new Error(`${res.statusCode} not JSON`);
  const body = res.json() as { error?: { code?: string; message?: unknown } };
  const keys = Object.keys(body).join();
  const inner = body.error ? Object.keys(body.error).sort().join() : '';
  if (keys !== 'error' || inner !== 'code,message' || typeof body.error!.message !== 'string') {
    throw new Error(`${res.statusCode} not in the error shape: ${res.body.slice(0, 200)}`);
  }
  const status = RENDER_ERRORS[body.error!.code as keyof typeof RENDER_ERRORS];
  if (status !== res.statusCode) throw new Error(`${res.statusCode} with code ${body.error!.code}`);
}

/** Dimension-like strings: valid ones at every scale (up to hundreds of digits), near misses and junk. */
export const dimensions = fc.oneof(
  fc.tuple(fc.stringMatching(/^\d{1,400}(\.\d{1,40})?$/), fc.constantFrom('mm', 'cm', 'in', 'px')).map(([n, u]) => `${n}${u}`),
  fc.tuple(fc.double(), fc.constantFrom('mm', 'cm', 'in', 'px', 'MM', 'pt', '', ' mm')).map(([n, u]) => `${n}${u}`),
  fc.constantFrom('0mm', '0.0001in', '200in', '200.0001in', '1e3mm', '-1mm', '.5in', '5.in', 'mm', '10mm ', '\u0661\u0660mm', ''),
  fc.string({ maxLength: 20 }),
);

const anything = fc.oneof(fc.jsonValue({ maxDepth: 2 }), dimensions);

/** Options objects close to valid, with hostile values where the parser must hold. */
export const options = fc.record(
  {
    format: fc.oneof(fc.constantFrom(...Object.keys(PAGE_FORMATS), 'a4', 'LETTER', 'A11', '__proto__', 'constructor'), anything),
    landscape: fc.oneof(fc.boolean(), anything),
    printBackground: fc.oneof(fc.boolean(), anything),
    scale: fc.oneof(fc.double({ min: 0.05, max: 2.5 }), fc.double(), anything),
    margin: fc.oneof(
      fc.record({ top: dimensions, bottom: dimensions, left: dimensions, right: dimensions }, { requiredKeys: [] }),
      anything,
    ),
    width: dimensions,
    height: dimensions,
  },
  { requiredKeys: [] },
);

/** Bodies: near-valid requests, arbitrary JSON, and strings that are not JSON at all. */
const bodies = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record(
        { html: fc.oneof(fc.constant('<p>fuzz</p>'), fc.string({ maxLength: 40 }), anything), options },
        { requiredKeys: ['html'] },
      )
      .map((b) => JSON.stringify(b)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"html":"<p>x</p>","__proto__":{"x":1}}',
      '{"html":"<p>x</p>","constructor":{"prototype":{}}}',
      '{"html":"\\ud800"}',
      '[]',
      '{',
      '"',
      '{"html":1e999}',
    ),
  },
);

const contentTypes = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-16',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/JSON',
      '',
      'multipart/form-data; boundary=x',
    ),
  },
);

/** POST /v1/render with any body: a PDF or the error shape, never a 500. */
export function renderRequestProperty(app: FastifyInstance, key: string): fc.IAsyncPropertyWithHooks<[string, string]> {
  return fc.asyncProperty(bodies, contentTypes, async (payload, contentType) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (contentType !== '') headers['content-type'] = contentType;
    assertRenderAnswer(await app.inject({ method: 'POST', url: '/v1/render', headers, payload }));
  });
}

/** Whether `opts` passes the request schema, the only way options reach toPrintParams. */
function schemaValid(opts: unknown): boolean {
  try {
    validateRenderRequest({ html: 'x', options: opts });
    return true;
  } catch {
    return false;
  }
}

/**
 * The dimension parser (any string) and the page rules (any options the schema lets through): finite,
 * non-negative printable sizes or INVALID_REQUEST. (Options the schema refuses never reach toPrintParams:
 * there an object `format` with its own `toString` makes it throw a TypeError, found by this property.)
 */
export function printParamsProperty(): fc.IPropertyWithHooks<[string, RenderOptions]> {
  return fc.property(dimensions, options as fc.Arbitrary<RenderOptions>, (dimension, opts) => {
    const valid = schemaValid(opts);
    for (const attempt of [
      () => [parseDimension('options.width', dimension)],
      () => {
        if (!valid) return [];
        const p = toPrintParams(opts);
        return [
          p.widthIn,
          p.heightIn,
          p.scale,
          p.margin.top,
          p.margin.right,
          p.margin.bottom,
          p.margin.left,
          p.widthIn - p.margin.left - p.margin.right,
          p.heightIn - p.margin.top - p.margin.bottom,
        ];
      },
    ]) {
      try {
        const values = attempt();
        if (!values.every((v) => Number.isFinite(v) && v >= 0)) throw new Error(`not finite and ≥ 0: ${values.join(', ')}`);
      } catch (err) {
        if (!(err instanceof RenderError) || err.code !== 'INVALID_REQUEST') throw err;
      }
    }
  });
}
