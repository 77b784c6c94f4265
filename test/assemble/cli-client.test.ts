/**
 * Assembling from the command line (`pageworks assemble`, a real process with its own Chromium) and from
 * the client (`RenderClient.assemble` against the render service on a port): the PDF as the API makes
 * it, and the same errors, naming the part.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { RenderApiError, RenderClient } from '../../src/client/index.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { noDns } from '../helpers/render.js';
import { page, pageCount, pageTexts, tinyPdf } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-assemble-cli-'));
const body = { parts: [{ html: page('Cover letter', 'Dear customer') }, { pdf: tinyPdf('Statement March').toString('base64') }] };

function cli(args: string[], input?: string) {
  return spawnSync(process.execPath, [...PAGEWORKS, 'assemble', ...args], {
    // From the repository (tsx resolves from there when the sources run); files by absolute path.
    cwd: ROOT,
    input,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PAGEWORKS_DATA_DIR: work, LOG_LEVEL: 'warn' },
    timeout: 90_000,
  });
}

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('pageworks assemble', () => {
  it('assembles a body file into OUT.pdf, and stdin into stdout', () => {
    fs.writeFileSync(path.join(work, 'statement.json'), JSON.stringify(body));
    const out = path.join(work, 'statement.pdf');
    const file = cli([path.join(work, 'statement.json'), '-o', out]);
    expect(file.status, file.stderr.toString()).toBe(0);
    expect(file.stderr.toString()).toBe(`wrote ${out} (${fs.statSync(out).size} bytes)\n`);
    const pdf = fs.readFileSync(path.join(work, 'statement.pdf'));
    expect(pageCount(pdf)).toBe(2);
    expect(pageTexts(pdf)[1]).toContain('Statement March');

    const piped = cli(['-', '-o', '-'], JSON.stringify(body));
    expect(piped.status, piped.stderr.toString()).toBe(0);
    expect(pageCount(piped.stdout)).toBe(2);
  }, 180_000);

  it('--stamp numbers every page and --split parts writes a zip of a PDF per part, as the API would', () => {
    fs.writeFileSync(
      path.join(work, 'batch.json'),
      JSON.stringify({ parts: [{ ...body.parts[0], title: 'Letter' }, body.parts[1]] }),
    );
    fs.writeFileSync(
      path.join(work, 'footer.html'),
      '<div style="position:absolute;bottom:20pt;right:30pt">Page {{page}} of {{pages}}</div>',
    );
    const run = cli([path.join(work, 'batch.json'), '--stamp', path.join(work, 'footer.html'), '--split', 'parts']);
    expect(run.status, run.stderr.toString()).toBe(0);
    const zip = path.join(work, 'batch.zip');
    expect(run.stderr.toString()).toBe(`wrote ${zip} (${fs.statSync(zip).size} bytes)\n`);
    const names = spawnSync('zipinfo', ['-1', zip], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    expect(names).toEqual(['Letter.pdf', 'Statement March.pdf']);
    spawnSync('unzip', ['-q', '-o', zip, '-d', path.join(work, 'batch')]);
    expect(pageTexts(fs.readFileSync(path.join(work, 'batch', 'Letter.pdf')))[0]).toContain('Page 1 of 2');
    expect(pageTexts(fs.readFileSync(path.join(work, 'batch', 'Statement March.pdf')))[0]).toContain('Page 2 of 2');
    const bad = cli([path.join(work, 'batch.json'), '--split', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.toString()).toContain('--split needs "parts" or a number of pages of at least 1, got "0"');
  }, 180_000);

  it('--help says what it takes; a bad part exits 2 naming it; no input exits 2', () => {
    const help = cli(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toContain(
      'Usage:\n  pageworks assemble BODY.json|- [-o OUT.pdf] [--stamp STAMP.html] [--split parts|N] [--strict]\n',
    );
    fs.writeFileSync(path.join(work, 'bad.json'), JSON.stringify({ parts: [{ html: '<p>x</p>' }, { pdf: 'R0lGODlh' }] }));
    const bad = cli([path.join(work, 'bad.json')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.toString()).toBe(
      'pageworks assemble: INVALID_REQUEST: parts[1]: not a PDF (its data does not start with %PDF-)\n',
    );
    const none = cli([]);
    expect(none.status).toBe(2);
    expect(none.stderr.toString()).toMatch(/^pageworks assemble: missing BODY\.json/);
  }, 180_000);
});

describe('RenderClient.assemble', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let client: RenderClient;

  beforeAll(async () => {
    core = await createTestCore({ RENDER_CONCURRENCY: '1' });
    app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    client = new RenderClient({
      baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
      apiKey: (await createKey(core, 'render')).key,
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
  });

  it('resolves with the PDF, its render id and warning count; a bad part rejects with the code and the part', async () => {
    const pdf = await client.assemble(body);
    expect(pageCount(pdf)).toBe(2);
    expect(pdf.renderId).toMatch(/^rnd_/);
    expect(pdf.warnings).toBe(0);
    const report = await client.getRender(pdf.renderId);
    expect(report.part_count).toBe(2);

    // A split resolves with the zip's bytes, its files named as the API names them.
    const zip = await client.assemble({ ...body, split: 'parts' });
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
    fs.writeFileSync(path.join(work, 'client.zip'), zip);
    expect(
      spawnSync('zipinfo', ['-1', path.join(work, 'client.zip')], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean),
    ).toEqual(['Cover letter.pdf', 'Statement March.pdf']);

    const failure = await client.assemble({ parts: [{ pdf: tinyPdf('x').toString('base64').slice(0, 40) }] }).catch((e) => e);
    expect(failure).toBeInstanceOf(RenderApiError);
    expect((failure as RenderApiError).code).toBe('PART_FAILED');
    expect((failure as RenderApiError).message).toMatch(/^parts\[0\]: /);
  }, 60_000);
});
