/**
 * Reading produced PDFs the way a user would check them: poppler's pdfinfo, pdftotext, pdffonts and pdftoppm, and qpdf.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function withFile<T>(pdf: Buffer, fn: (file: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-pdf-'));
  const file = path.join(dir, 'doc.pdf');
  fs.writeFileSync(file, pdf);
  try {
    return fn(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Page count, the first page's MediaBox width/height in points, and whether the PDF is tagged. */
export function pdfInfo(pdf: Buffer): { pages: number; width: number; height: number; tagged: boolean } {
  const out = withFile(pdf, (file) => execFileSync('pdfinfo', ['-box', '-f', '1', '-l', '1', file], { encoding: 'utf8' }));
  const pages = Number(/^Pages:\s+(\d+)/m.exec(out)?.[1]);
  const box = /MediaBox:\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)/.exec(out);
  if (!box) throw new Error(`no MediaBox in pdfinfo output:\n${out}`);
  const tagged = /^Tagged:\s+yes/m.test(out);
  return { pages, width: Number(box[3]) - Number(box[1]), height: Number(box[4]) - Number(box[2]), tagged };
}

/** The logical structure of a tagged PDF as pdfinfo prints it: one element per line, indented by depth. */
export function pdfStructure(pdf: Buffer): string {
  return withFile(pdf, (file) => execFileSync('pdfinfo', ['-struct', file], { encoding: 'utf8' }));
}

/** All text of the PDF. */
export function pdfText(pdf: Buffer): string {
  return withFile(pdf, (file) => execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }));
}

/** Bounding box (points, from the top-left) of the first word on page 1. */
export function firstWordBox(pdf: Buffer): { xMin: number; yMin: number; word: string } {
  const html = withFile(pdf, (file) =>
    execFileSync('pdftotext', ['-bbox', '-f', '1', '-l', '1', file, '-'], { encoding: 'utf8' }),
  );
  const m = /<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="[-\d.]+" yMax="[-\d.]+">([^<]*)<\/word>/.exec(html);
  if (!m) throw new Error('no word on page 1');
  return { xMin: Number(m[1]), yMin: Number(m[2]), word: m[3] };
}

/** RGB of the pixel at (x, y) of page `page` (1 by default) rasterised at `dpi`. */
export function pixel(pdf: Buffer, x: number, y: number, dpi = 20, page = 1): [number, number, number] {
  const ppm = withFile(pdf, (file) =>
    execFileSync('pdftoppm', ['-r', String(dpi), '-f', String(page), '-l', String(page), file], { maxBuffer: 64 << 20 }),
  );
  // Binary PPM (P6): magic, width, height, maxval separated by whitespace, then RGB bytes.
  const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(ppm.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('pdftoppm did not produce a binary PPM');
  const width = Number(header[1]);
  const offset = header[0].length + (y * width + x) * 3;
  return [ppm[offset], ppm[offset + 1], ppm[offset + 2]];
}

/** The text of each page, in order (pdftotext -layout, split at its form feeds). */
export function pdfPageTexts(pdf: Buffer): string[] {
  const pages = pdfText(pdf).split('\f');
  // pdftotext ends the last page with a form feed too.
  if (pages.at(-1)?.trim() === '') pages.pop();
  return pages;
}

/** Width and height in points of every page, in order. */
export function pdfPageSizes(pdf: Buffer): Array<[number, number]> {
  const out = withFile(pdf, (file) => execFileSync('pdfinfo', ['-f', '1', '-l', '9999', file], { encoding: 'utf8' }));
  return [...out.matchAll(/^Page\s+\d+\s+size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => [Number(m[1]), Number(m[2])]);
}

/** pdffonts' table: every font the PDF uses, its type, encoding and whether it is embedded. */
export function pdfFonts(pdf: Buffer): string {
  return withFile(pdf, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' }));
}

/** A word and its bounding box in points from the page's top-left corner. */
export interface WordBox {
  word: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** Every word on a page (1-based) with its box, in reading order. */
export function wordBoxes(pdf: Buffer, page = 1): WordBox[] {
  const html = withFile(pdf, (file) =>
    execFileSync('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8' }),
  );
  return [...html.matchAll(/<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)<\/word>/g)].map(
    (m) => ({
      word: m[5],
      xMin: Number(m[1]),
      yMin: Number(m[2]),
      xMax: Number(m[3]),
      yMax: Number(m[4]),
    }),
  );
}

/** The darkest grey level (0 black … 255 white) inside a box (points) of a page rasterised at `dpi`. */
export function darkestIn(pdf: Buffer, page: number, box: Omit<WordBox, 'word'>, dpi = 72): number {
  const ppm = withFile(pdf, (file) =>
    execFileSync('pdftoppm', ['-r', String(dpi), '-f', String(page), '-l', String(page), file], { maxBuffer: 64 << 20 }),
  );
  const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(ppm.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('pdftoppm did not produce a binary PPM');
  const [width, height] = [Number(header[1]), Number(header[2])];
  const scale = dpi / 72;
  let darkest = 255;
  for (let y = Math.max(0, Math.floor(box.yMin * scale)); y < Math.min(height, Math.ceil(box.yMax * scale)); y++) {
    for (let x = Math.max(0, Math.floor(box.xMin * scale)); x < Math.min(width, Math.ceil(box.xMax * scale)); x++) {
      const o = header[0].length + (y * width + x) * 3;
      darkest = Math.min(darkest, Math.round((ppm[o] + ppm[o + 1] + ppm[o + 2]) / 3));
    }
  }
  return darkest;
}

/** The document properties pdfinfo shows (Title, Author, Subject, Keywords, Creator, Producer, …), as UTF-8. */
export function pdfProperties(pdf: Buffer): Record<string, string> {
  const out = withFile(pdf, (file) => execFileSync('pdfinfo', ['-enc', 'UTF-8', file], { encoding: 'utf8' }));
  return Object.fromEntries([...out.matchAll(/^([A-Za-z][A-Za-z ]*):\s+(.*)$/gm)].map((m) => [m[1], m[2]]));
}

/** One bookmark as qpdf reads it: its title, the 1-based page it lands on, and its children. */
export interface OutlineEntry {
  title: string;
  page: number;
  kids: OutlineEntry[];
}

interface QpdfOutline {
  title: string;
  destpageposfrom1: number;
  kids: QpdfOutline[];
}

/** The PDF's outline (bookmarks), nested, as `qpdf --json` reads it. */
export function pdfOutline(pdf: Buffer): OutlineEntry[] {
  const json = withFile(pdf, (file) => execFileSync('qpdf', ['--json', '--json-key=outlines', file], { encoding: 'utf8' }));
  const simplify = (entries: QpdfOutline[]): OutlineEntry[] =>
    entries.map((e) => ({ title: e.title, page: e.destpageposfrom1, kids: simplify(e.kids) }));
  return simplify((JSON.parse(json) as { outlines: QpdfOutline[] }).outlines);
}

/** The catalog's /Lang as qpdf reads it (after every incremental update), or undefined when it has none. */
export function pdfLang(pdf: Buffer): string | undefined {
  const json = withFile(pdf, (file) => execFileSync('qpdf', ['--json', '--json-key=qpdf', file], { encoding: 'utf8' }));
  const [, objects] = (JSON.parse(json) as { qpdf: [unknown, Record<string, { value: Record<string, unknown> }>] }).qpdf;
  const root = objects.trailer.value['/Root'] as string;
  const lang = objects[`obj:${root}`].value['/Lang'] as string | undefined;
  return lang?.replace(/^u:/, '');
}

/** `qpdf --check`'s verdict: the exit status and what it printed (0 is a clean file, 3 warnings, 2 errors). */
export function qpdfCheck(pdf: Buffer): { status: number; output: string } {
  return withFile(pdf, (file) => {
    const res = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
    return { status: res.status ?? -1, output: `${res.stdout}${res.stderr}` };
  });
}
