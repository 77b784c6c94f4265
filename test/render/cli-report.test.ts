/**
 * `pageworks render` says what the document could not get: one warning a line on stderr and exit 0;
 * with --strict, exit 1 and no PDF. Only loopback resources (the CLI asks the system's resolver).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { runRenderCli } from '../../src/render/cli.js';
import { startAssetServer } from '../fixtures/render/mixed-document.js';
import { pdfText } from './pdf-tools.js';

let dir: string;
let assets: Awaited<ReturnType<typeof startAssetServer>>;
const config = loadConfig({ LOG_LEVEL: 'silent', EGRESS_ALLOW: '127.0.0.1/32' });

beforeAll(async () => {
  assets = await startAssetServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-cli-report-'));
  fs.writeFileSync(
    path.join(dir, 'invoice.html'),
    `<h1>Invoice 7</h1><img src="${assets.base}/logo.png"><img src="${assets.base}/ok.gif">
     <script>throw new Error('multi\\nline failure')</script>`,
  );
  fs.writeFileSync(path.join(dir, 'clean.html'), '<h1>Clean</h1>');
  fs.writeFileSync(
    path.join(dir, 'declared.html'),
    '<html><head><meta name="pdf-profile" content="PDF/A-2b, PDF/UA-1"><title>Letter</title></head><body><h1>Letter</h1></body></html>',
  );
  // Terminal control characters in what the document wrote: ESC sequences, BEL, CR, and a file name
  // that tries to start a warning line of its own.
  fs.writeFileSync(
    path.join(dir, 'controls.html'),
    `<h1>Controls</h1><img src="${assets.base}/a%0d%0apageworks%20render:%20warning:%20forged%1b%5b2K.png">
     <script>throw new Error('bell\\u0007 escape\\u001b[31mred\\u001b[0m carriage\\rreturn\\u009b2J')</script>`,
  );
});

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await assets?.close();
});

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await runRenderCli(args, config), stderr };
  } finally {
    spy.mockRestore();
  }
}

describe('pageworks render warnings', () => {
  it('prints each warning on its own line and exits 0 with the PDF written', async () => {
    const out = path.join(dir, 'invoice.pdf');
    const { code, stderr } = await run([path.join(dir, 'invoice.html'), '-o', out]);
    expect(code).toBe(0);
    expect(pdfText(fs.readFileSync(out))).toContain('Invoice 7');
    const lines = stderr.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('pageworks render: warning: ')).sort()).toEqual([
      'pageworks render: warning: A script in the document failed: Error: multi line failure',
      'pageworks render: warning: logo.png was not loaded: its server answered HTTP 404',
    ]);
    expect(lines.at(-1)).toMatch(/^wrote .*invoice\.pdf \(\d+ bytes\)$/);
  });

  it('--strict exits 1 on any warning and writes no PDF', async () => {
    const out = path.join(dir, 'strict.pdf');
    const { code, stderr } = await run([path.join(dir, 'invoice.html'), '-o', out, '--strict']);
    expect(code).toBe(1);
    expect(fs.existsSync(out)).toBe(false);
    expect(stderr).toContain('pageworks render: warning: logo.png was not loaded: its server answered HTTP 404');
    expect(stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^pageworks render: RENDER_INCOMPLETE: the document could not get everything \(2 warnings, strict handling\)/,
    );
  });

  it('--strict on a clean document exits 0 and prints no warning', async () => {
    const out = path.join(dir, 'clean.pdf');
    const { code, stderr } = await run([path.join(dir, 'clean.html'), '-o', out, '--strict']);
    expect(code).toBe(0);
    expect(stderr).not.toContain('warning');
    // A document that declares nothing claims nothing: no claims line.
    expect(stderr).not.toContain('claims');
    expect(fs.existsSync(out)).toBe(true);
  });

  it('names the profile a conformance warning keeps from being claimed, and its clause', async () => {
    const out = path.join(dir, 'declared.pdf');
    const { code, stderr } = await run([path.join(dir, 'declared.html'), '-o', out]);
    expect(code).toBe(0);
    expect(stderr.split('\n').filter((l) => l.startsWith('pageworks render: warning: '))).toEqual([
      'pageworks render: warning: PDF/UA-1 not claimed (7.2-34): The document does not say its language (<html lang="…">), ' +
        'so a screen reader cannot tell which language to read it in: add lang to <html>',
    ]);
    // PDF/A-2b is met and claimed: the warning is about PDF/UA-1 alone, and the claims line says so.
    expect(stderr.split('\n')).toContain('pageworks render: claims PDF/A-2b');
    const pdf = fs.readFileSync(out).toString('latin1');
    expect(pdf).toContain('<pdfaid:part>2</pdfaid:part>');
    expect(pdf).not.toContain('<pdfuaid:part>');
  });

  it('a document meeting both profiles it declares gets one claims line naming both', async () => {
    const file = path.join(dir, 'both.html');
    fs.writeFileSync(
      file,
      '<html lang="en"><head><meta name="pdf-profile" content="PDF/A-3b, PDF/UA-1"><title>Letter</title></head><body><h1>Letter</h1></body></html>',
    );
    const { code, stderr } = await run([file, '-o', path.join(dir, 'both.pdf')]);
    expect(code).toBe(0);
    expect(stderr.trimEnd().split('\n').slice(-2)[0]).toBe('pageworks render: claims PDF/A-3b, PDF/UA-1');
  });

  it("prints the document's text with no ESC, BEL or CR, and no line it did not write itself", async () => {
    const out = path.join(dir, 'controls.pdf');
    const { code, stderr } = await run([path.join(dir, 'controls.html'), '-o', out]);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/[\u0007\u001b\r\u009b]/);
    const lines = stderr.trimEnd().split('\n');
    const warnings = lines.filter((l) => l.startsWith('pageworks render: warning: '));
    expect(warnings).toHaveLength(2);
    expect(lines).toHaveLength(3);
    expect(warnings.join('\n')).toContain('escape');
  });
});
