/**
 * The limits on a job's and an assembly's texts count characters (Unicode code points), as the OpenAPI
 * document's maxLength does and as the messages say: a `reference` of 200 emoji is accepted and one of
 * 201 is refused naming 201 characters (an emoji is two UTF-16 units, which were counted). Through
 * POST /v1/jobs with the worker held: nothing renders.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { expectJobError, submitJob } from './helpers.js';

const EMOJI = '😀';
const emoji = (n: number) => EMOJI.repeat(n);
const HOOK = 'https://hooks.example.com/';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;

// The one name the stub resolver knows, at a public address: classification only, nothing is sent there.
async function stubLookup(hostname: string) {
  if (hostname === 'hooks.example.com') return [{ address: '93.184.215.14', family: 4 as const }];
  throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
}

beforeAll(async () => {
  core = await createTestCore({ RENDER_RATE_LIMIT: '1000' });
  app = await buildRenderApp(core, { lookup: stubLookup, startJobWorker: false });
  key = (await createKey(core, 'render')).key;
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

describe('text limits count characters, not UTF-16 units', () => {
  it('reference: 101 emoji are accepted and echoed; 200 are the limit; 201 are refused naming 201 characters', async () => {
    for (const n of [101, 200]) {
      const res = await submitJob(app, key, { html: '<p>x</p>', reference: emoji(n) });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json().reference).toBe(emoji(n));
    }
    expectJobError(
      await submitJob(app, key, { html: '<p>x</p>', reference: emoji(201) }),
      400,
      'INVALID_REQUEST',
      'reference: 201 characters is more than the limit of 200',
    );
  });

  it("an assembly job's texts at their limits in emoji are accepted", async () => {
    const res = await submitJob(app, key, {
      parts: [{ html: '<p>x</p>', title: emoji(500) }, { url: `https://example.com/${emoji(2048 - 20)}` }],
      metadata: { title: emoji(2000), author: emoji(2000) },
      stamps: [{ html: `<p>${emoji(1000)}</p>` }],
      protect: { owner_password: emoji(200), user_password: emoji(200) },
      webhook: { url: `${HOOK}${emoji(2048 - HOOK.length)}` },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(202);
  });

  it.each([
    [
      'parts[0].title',
      { parts: [{ html: '<p>x</p>', title: emoji(501) }] },
      'parts[0].title: 501 characters is more than the limit of 500',
    ],
    [
      'parts[0].url',
      { parts: [{ url: `https://example.com/${emoji(2048 - 19)}` }] },
      'parts[0].url: 2049 characters is more than the limit of 2048',
    ],
    ['parts[0].file', { parts: [{ file: emoji(256) }] }, 'parts[0].file: 256 characters is more than the limit of 255'],
    [
      'metadata.subject',
      { parts: [{ html: '<p>x</p>' }], metadata: { subject: emoji(2001) } },
      'metadata.subject: 2001 characters is more than the limit of 2000',
    ],
    [
      'protect.owner_password',
      { parts: [{ html: '<p>x</p>' }], protect: { owner_password: emoji(201) } },
      'protect.owner_password: 201 characters is more than the limit of 200',
    ],
    [
      'sign.reason',
      { parts: [{ html: '<p>x</p>' }], sign: { certificate: 'crt_00000000000000000000000000000000', reason: emoji(201) } },
      'sign.reason: 201 characters is more than the limit of 200',
    ],
    [
      'webhook.url',
      { html: '<p>x</p>', webhook: { url: `${HOOK}${emoji(2049 - HOOK.length)}` } },
      'webhook.url: longer than 2048 characters',
    ],
  ])('%s one character over its limit, in emoji, is refused naming the characters', async (_field, body, message) => {
    expectJobError(await submitJob(app, key, body), 400, 'INVALID_REQUEST', message);
  });

  it('a file name of 255 emoji is within its limit (the request is refused for want of the upload, not for the name)', async () => {
    expectJobError(
      await submitJob(app, key, { parts: [{ file: emoji(255) }] }),
      400,
      'INVALID_REQUEST',
      /^parts\[0\]\.file: a file part needs a multipart\/form-data request/,
    );
  });
});
