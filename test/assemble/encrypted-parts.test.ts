/**
 * Encrypted PDF parts through POST /v1/assemble, encrypted as qpdf does it for a user (RC4 40-bit, AES-128
 * and AES-256): a file that opens without a password and whose owner allows assembling it is read (its pages
 * look and read as they did), and what else its owner forbade is named, since the assembly does not keep it;
 * a file that needs a password, or whose owner forbids assembling it, is refused with its reason.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assembleServiceForFile, b64, pageCount, pageTexts, renderRecord, tinyPdf } from './helpers.js';

const service = assembleServiceForFile();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-encrypted-parts-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A two-page statement, as a user's file would be: qpdf's merge of two pages, streams compressed. */
const statement = (() => {
  fs.writeFileSync(path.join(work, 'p1.pdf'), tinyPdf('Statement of account'));
  fs.writeFileSync(path.join(work, 'p2.pdf'), tinyPdf('Closing balance 1,250.00'));
  const out = path.join(work, 'statement.pdf');
  execFileSync('qpdf', ['--empty', '--pages', path.join(work, 'p1.pdf'), path.join(work, 'p2.pdf'), '--', out]);
  return fs.readFileSync(out);
})();

/** The statement encrypted by `qpdf --encrypt USER OWNER BITS [restrictions] --`. */
function encrypted(user: string, bits: 40 | 128 | 256, restrictions: string[] = []): Buffer {
  const out = path.join(work, `encrypted-${bits}-${restrictions.join('')}-${user}.pdf`);
  const weak = bits === 256 ? [] : ['--allow-weak-crypto'];
  execFileSync('qpdf', [
    ...weak,
    '--encrypt',
    user,
    'owner secret',
    String(bits),
    ...restrictions,
    '--',
    path.join(work, 'statement.pdf'),
    out,
  ]);
  return fs.readFileSync(out);
}

/** Page `n` (from 1) in grey at 36 dpi, as pdftoppm draws it. */
function raster(pdf: Buffer, n: number): Buffer {
  const file = path.join(work, 'raster.pdf');
  fs.writeFileSync(file, pdf);
  return execFileSync('pdftoppm', ['-r', '36', '-gray', '-f', String(n), '-l', String(n), file]);
}

function encryptedAtAll(pdf: Buffer): string {
  const file = path.join(work, 'info.pdf');
  fs.writeFileSync(file, pdf);
  return /^Encrypted:\s+(\w+)/m.exec(spawnSync('pdfinfo', [file], { encoding: 'utf8' }).stdout)?.[1] ?? '';
}

describe('an encrypted PDF part', () => {
  it('opens without a password and allows assembling: its pages as they were, and what its owner forbade named', async () => {
    const part = encrypted('', 256, ['--print=none', '--extract=n']);
    const res = await service.assemble({ parts: [{ pdf: b64(part) }, { html: '<title>Notes</title><p>Notes</p>' }] });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    expect(pageCount(pdf)).toBe(3);
    expect(encryptedAtAll(pdf)).toBe('no');
    const texts = pageTexts(pdf).map((t) => t.trim());
    expect(texts.slice(0, 2)).toEqual(['Statement of account', 'Closing balance 1,250.00']);
    expect(raster(pdf, 2).equals(raster(statement, 2))).toBe(true);
    expect(res.headers['x-render-warnings']).toBe('1');

    const record = await renderRecord(service.app, service.key, String(res.headers['x-render-id']));
    expect(record.warnings).toEqual([
      {
        kind: 'active_content',
        content: 'permissions',
        count: 1,
        removed: true,
        part: 'parts[0]',
        message:
          'parts[0]: its owner’s restrictions (no printing, no copying of text and images) are not carried over: the assembly allows what its own `protect` allows',
      },
    ]);
    expect((record.parts as Array<{ warnings: number }>).map((p) => p.warnings)).toEqual([1, 0]);
  }, 60_000);

  it('keeps the warning when only some of its pages are kept', async () => {
    const res = await service.assemble({
      parts: [{ pdf: b64(encrypted('', 128, ['--modify-other=n', '--annotate=n', '--form=n'])), pages: '2' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(pageTexts(res.rawPayload).map((t) => t.trim())).toEqual(['Closing balance 1,250.00']);
    const record = await renderRecord(service.app, service.key, String(res.headers['x-render-id']));
    expect((record.warnings as Array<{ message: string }>).map((w) => w.message)).toEqual([
      'parts[0]: its owner’s restrictions (no changes, no comments, no form filling) are not carried over: the assembly allows what its own `protect` allows',
    ]);
  }, 60_000);

  it('that forbids nothing (RC4 40-bit, as old generators encrypt) is read without a warning', async () => {
    const res = await service.assemble({ parts: [{ pdf: b64(encrypted('', 40)) }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('0');
    expect(pageTexts(res.rawPayload).map((t) => t.trim())).toEqual(['Statement of account', 'Closing balance 1,250.00']);
    expect(raster(res.rawPayload, 1).equals(raster(statement, 1))).toBe(true);
  }, 60_000);

  it('whose owner forbids assembling it, or that needs a password, is refused with its reason', async () => {
    const forbidden = await service.assemble({ parts: [{ pdf: b64(encrypted('', 256, ['--assemble=n'])) }] });
    expect(forbidden.statusCode, forbidden.body).toBe(422);
    expect(forbidden.json().error).toEqual({
      code: 'PART_FAILED',
      message:
        'parts[0]: the PDF’s permissions, set by its owner, forbid assembling it into another document; ask for a copy without that restriction',
    });
    const locked = await service.assemble({ parts: [{ html: '<p>Cover</p>' }, { pdf: b64(encrypted('open sesame', 256)) }] });
    expect(locked.statusCode, locked.body).toBe(422);
    expect(locked.json().error).toEqual({
      code: 'PART_FAILED',
      message: 'parts[1]: the PDF needs a password to open; send it unprotected (protect the assembly instead)',
    });
  }, 60_000);
});
