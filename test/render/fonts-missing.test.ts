/**
 * A machine with only DejaVu and Liberation (what a fresh Debian has before setup installs Noto), made by
 * pointing fontconfig at those two directories: the render service names the scripts it cannot print in
 * /v1/ready, and the multi-script invoice's empty boxes are found by the check real-documents relies on.
 * FONTCONFIG_FILE is set for this test file's own process (vitest runs each file in its own fork), and
 * Chromium inherits it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { glyphReport } from './pdf-glyphs.js';

const FONT_DIRS = ['/usr/share/fonts/truetype/dejavu', '/usr/share/fonts/truetype/liberation'];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-fontconfig-'));
const hasFonts = FONT_DIRS.every((d) => fs.existsSync(d));

let core: CoreDeps;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  if (!hasFonts) return;
  const conf = path.join(dir, 'fonts.conf');
  fs.writeFileSync(
    conf,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig>\n` +
      FONT_DIRS.map((d) => `  <dir>${d}</dir>\n`).join('') +
      `  <cachedir>${path.join(dir, 'cache')}</cachedir>\n  <include ignore_missing="yes">/etc/fonts/conf.d</include>\n</fontconfig>\n`,
  );
  process.env.FONTCONFIG_FILE = conf;
  core = await createTestCore();
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
});

afterAll(async () => {
  delete process.env.FONTCONFIG_FILE;
  await app?.close();
  if (core) await closeTestCore(core);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasFonts)('only DejaVu and Liberation installed', () => {
  it('/v1/ready stays ready and names every script without a font', async () => {
    const ready = await app.inject({ url: '/v1/ready' });
    expect(ready.statusCode).toBe(200);
    // DejaVu covers Latin, Greek, Cyrillic, Arabic and Hebrew; nothing covers the rest.
    expect(ready.json().fonts).toEqual({
      missing: [
        'Japanese',
        'Chinese (Simplified)',
        'Chinese (Traditional)',
        'Korean',
        'Devanagari',
        'Bengali',
        'Tamil',
        'Thai',
        'emoji',
      ],
    });
  });

  it('the multi-script invoice prints empty boxes, and the check finds them', async () => {
    const html = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/render/multi-script-invoice.html'), 'utf8');
    const res = await postRender(app, key, { html });
    expect(res.statusCode).toBe(200);
    const { notdef, fonts } = glyphReport(res.rawPayload);
    expect(fonts.some((f) => /Noto/.test(f))).toBe(false);
    // 山田太郎 alone is four boxes; the invoice has well over a hundred characters in the uncovered scripts.
    expect(notdef.reduce((n, e) => n + e.count, 0)).toBeGreaterThan(100);
  });
});
