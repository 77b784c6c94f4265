/**
 * Reading a finished assembly back as a user would: each page's /Rotate (qpdf --json), the document's
 * properties (pdfinfo), and the files of a zip answer.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function withFile<T>(bytes: Buffer, fn: (file: string, dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-finishing-'));
  const file = path.join(dir, 'doc.pdf');
  fs.writeFileSync(file, bytes);
  try {
    return fn(file, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Each page's rotation in degrees, as qpdf reads the page objects. */
export function pageRotations(pdf: Buffer): number[] {
  return withFile(pdf, (file) => {
    const json = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=pages', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 256 << 20 }),
    );
    const objects = json.qpdf[1] as Record<string, { value: Record<string, unknown> }>;
    return (json.pages as Array<{ object: string }>).map((p) => Number(objects[`obj:${p.object}`].value['/Rotate'] ?? 0));
  });
}

/** pdfinfo's fields (Title, Author, Subject, Keywords, Pages…), and its -meta output as `xmp`. */
export function pdfInfoFields(pdf: Buffer, password?: string): Record<string, string> {
  return withFile(pdf, (file) => {
    const pw = password ? ['-upw', password] : [];
    const out: Record<string, string> = {};
    for (const line of execFileSync('pdfinfo', [...pw, file], { encoding: 'utf8' }).split('\n')) {
      const m = /^([A-Za-z ]+):\s*(.*)$/.exec(line);
      if (m) out[m[1]] = m[2].trim();
    }
    out.xmp = execFileSync('pdfinfo', [...pw, '-meta', file], { encoding: 'utf8' });
    return out;
  });
}

/** The catalog's entries as qpdf --json=2 writes them (strings as `u:…`, names as `/…`, direct dictionaries inline). */
export function catalogEntries(pdf: Buffer): Record<string, unknown> {
  return withFile(pdf, (file) => {
    const json = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 256 << 20 }),
    );
    const objects = json.qpdf[1] as Record<string, { value: Record<string, unknown> }>;
    const root = String(objects.trailer.value['/Root']);
    const catalog = { ...objects[`obj:${root}`].value };
    for (const [key, value] of Object.entries(catalog))
      if (typeof value === 'string' && / R$/.test(value) && objects[`obj:${value}`]) {
        const target = objects[`obj:${value}`].value;
        if (target && typeof target === 'object' && !('stream' in target)) catalog[key] = target;
      }
    return catalog;
  });
}

/** What an answer claims, by its X-Render-Claims header when there is one, else by the file's XMP. */
export function claimsHeader(res: { headers: Record<string, unknown>; rawPayload: Buffer }): string[] {
  const header = res.headers['x-render-claims'];
  if (typeof header === 'string')
    return header
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
  const xmp = res.rawPayload.toString('latin1');
  const claims: string[] = [];
  const part = /pdfaid:part>(\d)</.exec(xmp)?.[1];
  const level = /pdfaid:conformance>([A-Za-z])</.exec(xmp)?.[1];
  if (part && level) claims.push(`PDF/A-${part}${level.toLowerCase()}`);
  if (/pdfuaid:part>1</.test(xmp)) claims.push('PDF/UA-1');
  return claims;
}
