/**
 * `pageworks render` goes through the same validation, options and renderer as the API.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { parseRenderArgs, runRenderCli } from '../../src/render/cli.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { pdfInfo, pdfText } from './pdf-tools.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;
const config = loadConfig({ LOG_LEVEL: 'silent' });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-cli-'));
  fs.writeFileSync(path.join(dir, 'in.html'), '<p>from the command line</p>');
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function stderrOf(fn: () => Promise<number>): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  return fn().then(
    (code) => (spy.mockRestore(), { code, stderr }),
    (err) => {
      spy.mockRestore();
      throw err;
    },
  );
}

describe('pageworks render', () => {
  it('renders a file with format, landscape and margins', async () => {
    const out = path.join(dir, 'out.pdf');
    const { code } = await stderrOf(() =>
      runRenderCli([path.join(dir, 'in.html'), '-o', out, '--format', 'letter', '--landscape', '--margin', '1in'], config),
    );
    expect(code).toBe(0);
    const pdf = fs.readFileSync(out);
    const info = pdfInfo(pdf);
    expect(Math.abs(info.width - 792)).toBeLessThanOrEqual(1.5);
    expect(Math.abs(info.height - 612)).toBeLessThanOrEqual(1.5);
    expect(pdfText(pdf)).toContain('from the command line');
  });

  it('writes IN.pdf next to the input by default', () => {
    expect(parseRenderArgs(['docs/a.html']).output).toBe(path.join('docs', 'a.pdf'));
    expect(parseRenderArgs(['a.html', '--margin-top', '2mm', '--scale', '1.5']).options).toEqual({
      margin: { top: '2mm' },
      scale: 1.5,
    });
  });

  it('refuses bad options with the API’s message and usage errors, each as one line and exit code 2', async () => {
    const bad = await stderrOf(() => runRenderCli([path.join(dir, 'in.html'), '--margin', '10pt'], config));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'pageworks render: INVALID_REQUEST: options.margin.top: "10pt" is not a dimension (mm, cm, in, px)\n',
    );
    const usage = await stderrOf(() => runRenderCli(['--format'], config));
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('pageworks render: --format needs a value\n');
  });

  it('as a process, exits as soon as the PDF is written (nothing of the browser keeps it alive)', async () => {
    const out = path.join(dir, 'process.pdf');
    const child = spawn(process.execPath, [...PAGEWORKS, 'render', path.join(dir, 'in.html'), '-o', out], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    let stderr = '';
    let wroteAt = 0;
    child.stderr.on('data', (d) => {
      stderr += d;
      if (!wroteAt && stderr.includes('wrote ')) wroteAt = Date.now();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stderr).toContain(`wrote ${out}`);
    expect(pdfText(fs.readFileSync(out))).toContain('from the command line');
    // Closing Chromium takes a few hundred ms; a leftover timer showed up as a 5 s wait here.
    expect(Date.now() - wroteAt).toBeLessThan(3000);
  }, 60_000);

  it('-o - writes the PDF to stdout, and nothing else goes there', async () => {
    const child = spawn(process.execPath, [...PAGEWORKS, 'render', path.join(dir, 'in.html'), '-o', '-'], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const pdf = Buffer.concat(chunks);
    expect(code).toBe(0);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdfText(pdf)).toContain('from the command line');
    expect(stderr).toBe(`wrote the PDF to stdout (${pdf.length} bytes)\n`);
    expect(fs.existsSync(path.join(ROOT, '-'))).toBe(false);
  }, 60_000);
});
