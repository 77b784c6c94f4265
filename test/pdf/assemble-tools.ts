/**
 * Reading an assembled PDF back with qpdf and poppler, as a user would check it: the page each link
 * lands on, the XMP's claims, what `qpdf --show-encryption` says, and PDFs laid out in other ways.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function inDir<T>(files: Record<string, Buffer>, fn: (dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-assemble-'));
  try {
    for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), bytes);
    return fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The PDF rewritten by qpdf with object streams and a cross-reference stream (an "existing PDF" of another layout). */
export function withObjectStreams(pdf: Buffer): Buffer {
  return inDir({ 'in.pdf': pdf }, (dir) => {
    execFileSync('qpdf', ['--object-streams=generate', path.join(dir, 'in.pdf'), path.join(dir, 'out.pdf')]);
    return fs.readFileSync(path.join(dir, 'out.pdf'));
  });
}

/** Each internal link as (page it is on, page it lands on), pages from 1, once per pair (a link broken over lines is one), read with qpdf --json and pdfinfo -dests. */
export function internalLinks(pdf: Buffer): Array<{ on: number; to: number }> {
  return inDir({ 'doc.pdf': pdf }, (dir) => {
    const file = path.join(dir, 'doc.pdf');
    const dests = new Map<string, number>();
    for (const line of execFileSync('pdfinfo', ['-dests', file], { encoding: 'utf8' }).split('\n')) {
      const m = /^\s*(\d+)\s+\[[^\]]*\]\s+"(.*)"\s*$/.exec(line);
      if (m) dests.set(m[2], Number(m[1]));
    }
    const json = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=pages', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 256 << 20 }),
    );
    const objects = json.qpdf[1] as Record<string, { value: Record<string, unknown> }>;
    const pageOf = new Map<string, number>();
    for (const [i, p] of (json.pages as Array<{ object: string }>).entries()) pageOf.set(p.object, i + 1);
    const links: Array<{ on: number; to: number }> = [];
    (json.pages as Array<{ object: string }>).forEach((page, i) => {
      const annots = objects[`obj:${page.object}`].value['/Annots'];
      const list = (typeof annots === 'string' ? objects[`obj:${annots}`].value : annots) as unknown as string[] | undefined;
      for (const ref of list ?? []) {
        const annot = objects[`obj:${ref}`]?.value;
        if (!annot) continue;
        let dest = annot['/Dest'] ?? (annot['/A'] as Record<string, unknown> | undefined)?.['/D'];
        if (typeof dest === 'string' && dest.startsWith('u:')) dest = dests.get(dest.slice(2)) ?? -1;
        if (typeof dest === 'string' && dest.startsWith('/')) dest = dests.get(dest.slice(1)) ?? -1;
        if (typeof dest === 'string' && dest.startsWith('b:'))
          dest = dests.get(Buffer.from(dest.slice(2), 'hex').toString('latin1')) ?? -1;
        if (Array.isArray(dest)) dest = pageOf.get(dest[0] as string) ?? -1;
        if (typeof dest === 'number' && !links.some((l) => l.on === i + 1 && l.to === dest)) links.push({ on: i + 1, to: dest });
      }
    });
    return links;
  });
}

/** What the XMP claims (in the names a document declares), read from the file's bytes. */
export function xmpClaimsOf(pdf: Buffer, password?: string): string[] {
  const text = password === undefined ? pdf.toString('utf8') : decrypted(pdf, password).toString('utf8');
  const start = text.lastIndexOf('<x:xmpmeta');
  const xmp = start < 0 ? '' : text.slice(start, text.indexOf('</x:xmpmeta>', start));
  const claims: string[] = [];
  const part = /<pdfaid:part>(\d)<\/pdfaid:part>/.exec(xmp)?.[1];
  const level = /<pdfaid:conformance>([A-Z])<\/pdfaid:conformance>/.exec(xmp)?.[1];
  if (part) claims.push(`PDF/A-${part}${level?.toLowerCase() ?? ''}`);
  if (/<pdfuaid:part>1<\/pdfuaid:part>/.test(xmp)) claims.push('PDF/UA-1');
  return claims;
}

/** The PDF decrypted by qpdf with `password`, streams uncompressed where qpdf can (to read the XMP). */
export function decrypted(pdf: Buffer, password: string): Buffer {
  return inDir({ 'in.pdf': pdf }, (dir) => {
    execFileSync('qpdf', [
      `--password=${password}`,
      '--decrypt',
      '--stream-data=uncompress',
      path.join(dir, 'in.pdf'),
      path.join(dir, 'out.pdf'),
    ]);
    return fs.readFileSync(path.join(dir, 'out.pdf'));
  });
}

/** `qpdf --show-encryption` (with a password when given), as text. */
export function showEncryption(pdf: Buffer, password?: string): string {
  return inDir({ 'doc.pdf': pdf }, (dir) => {
    const args = [...(password === undefined ? [] : [`--password=${password}`]), '--show-encryption', path.join(dir, 'doc.pdf')];
    const res = spawnSync('qpdf', args, { encoding: 'utf8' });
    return `${res.stdout}${res.stderr}`;
  });
}

/** pdftotext's text and exit status, with a user password when given. */
export function pdftotext(pdf: Buffer, password?: string): { status: number; text: string } {
  return inDir({ 'doc.pdf': pdf }, (dir) => {
    const args = [...(password === undefined ? [] : ['-upw', password]), path.join(dir, 'doc.pdf'), '-'];
    const res = spawnSync('pdftotext', args, { encoding: 'utf8' });
    return { status: res.status ?? -1, text: res.stdout };
  });
}
