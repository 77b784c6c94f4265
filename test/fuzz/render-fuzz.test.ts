/**
 * Adversarial render requests, fixed seed (the bench's `fuzz` section runs them for minutes): any body, content
 * type and option values get a PDF or the render error shape with its table status, never a 500; the dimension
 * parser and the page rules give finite sizes or INVALID_REQUEST.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { printParamsProperty, renderRequestProperty } from './render-properties.js';

const SEED = 15;

let core: CoreDeps;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1', RENDER_RATE_LIMIT: '1000000' });
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

describe('render request fuzzing (fixed seed)', () => {
  it('dimensions and page rules: finite sizes or INVALID_REQUEST', () => {
    fc.assert(printParamsProperty(), { seed: SEED, numRuns: 3000 });
  });

  it('POST /v1/render: a PDF or the error shape, never a 500', async () => {
    await fc.assert(renderRequestProperty(app, key), { seed: SEED, numRuns: 80 });
  }, 120_000);
});
