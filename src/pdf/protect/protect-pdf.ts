/**
 * Protects a PDF with AES-256 (ISO 32000-2 security handler revision 6, crypt filter AESV3) through qpdf:
 * a user password to open it (or none), an owner password, and what a reader may do without the owner
 * password. Extraction for accessibility (P bit 10) is always allowed: screen readers must read the text.
 * PDF/A forbids encryption (6.1.3 of parts 2 and 3), so a PDF/A claim (and Factur-X, which builds on it)
 * is taken out of the XMP before encrypting; `protectionClaims` tells the caller what remains claimed.
 */

import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { xmpClaims, xmpText, xmpWithClaims } from '../assemble/assembly-claims.js';
import { readPart } from '../assemble/read-part.js';
import { dict, name } from '../profiles/pdf-objects.js';
import type { Claim, ConformanceIssue } from '../profiles/types.js';
import { QpdfMissing } from '../qpdf.js';

/** What a reader without the owner password may do. */
export type Permission = 'print' | 'copy' | 'modify' | 'annotate' | 'fill-forms' | 'assemble';

/** Every permission, in the order the docs list them. */
export const PERMISSIONS: readonly Permission[] = ['print', 'copy', 'modify', 'annotate', 'fill-forms', 'assemble'];

/** How to protect: passwords (UTF-8, no line breaks) and the permissions granted. */
export interface ProtectOptions {
  /** Needed to open the PDF; none (or empty) means anyone may open it, the permissions still apply. */
  userPassword?: string;
  ownerPassword: string;
  allow?: readonly Permission[];
}

/** qpdf's --encrypt options for the granted permissions (accessibility always on). */
function permissionArgs(allow: readonly Permission[]): string[] {
  const yn = (p: Permission): string => (allow.includes(p) ? 'y' : 'n');
  return [
    `--print=${allow.includes('print') ? 'full' : 'none'}`,
    `--extract=${yn('copy')}`,
    `--modify-other=${yn('modify')}`,
    `--annotate=${yn('annotate')}`,
    `--form=${yn('fill-forms')}`,
    `--assemble=${yn('assemble')}`,
    '--accessibility=y',
  ];
}

/** The claims a protected PDF keeps (no PDF/A, no Factur-X) and an issue for each it loses. */
export function protectionClaims(claims: readonly Claim[]): { claims: Claim[]; issues: ConformanceIssue[] } {
  const lost = claims.filter((c) => c.startsWith('PDF/A-') || c === 'Factur-X');
  return {
    claims: claims.filter((c) => !lost.includes(c)),
    issues: lost.map((profile) => ({
      profile,
      clause: profile === 'Factur-X' ? 'Factur-X 1.0' : '6.1.3',
      element: 'protect',
      message: `${profile} forbids encryption, so the protected PDF does not claim ${profile}`,
    })),
  };
}

/** The PDF with any PDF/A or Factur-X claim taken out of its XMP (unchanged when it has none). */
async function withoutArchivalClaims(pdf: Uint8Array): Promise<Uint8Array> {
  const file = await readPart(pdf, 'pdf');
  const xmp = xmpText(file);
  const claims = xmpClaims(xmp);
  const kept = protectionClaims(claims).claims;
  if (kept.length === claims.length) return pdf;
  const edited = xmpWithClaims(xmp, kept);
  const catalog = file.catalog();
  const value = new Map(catalog.value);
  if (edited) value.set('Metadata', file.add(dict({ Type: name('Metadata'), Subtype: name('XML') }), edited));
  else value.delete('Metadata');
  file.set(catalog.num, value);
  return file.finish(new Map());
}

/** The PDF encrypted with AES-256 (R6); throws RangeError for a password qpdf cannot take. */
export async function protectPdf(pdf: Uint8Array, opts: ProtectOptions): Promise<Uint8Array> {
  const user = opts.userPassword ?? '';
  if (!opts.ownerPassword) throw new RangeError('an owner password is required');
  if (/[\r\n\0]/.test(user + opts.ownerPassword)) throw new RangeError('a password must not contain line breaks or NUL');
  const input = await withoutArchivalClaims(pdf);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pageworks-protect-'));
  try {
    const [inFile, outFile, argsFile] = ['in.pdf', 'out.pdf', 'args'].map((f) => path.join(dir, f));
    await fs.writeFile(inFile, input);
    // The passwords go through an argument file (mode 0600), never the command line other users can list.
    const args = [
      '--stream-data=preserve',
      '--encrypt',
      user,
      opts.ownerPassword,
      '256',
      ...permissionArgs(opts.allow ?? []),
      '--',
      inFile,
      outFile,
    ];
    await fs.writeFile(argsFile, `${args.join('\n')}\n`, { mode: 0o600 });
    await new Promise<void>((resolve, reject) =>
      execFile('qpdf', [`@${argsFile}`], (error, _o, stderr) => {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') reject(new QpdfMissing());
        else if (error && error.code !== 3) reject(new Error(`qpdf could not encrypt the PDF: ${stderr.trim().slice(0, 300)}`));
        else resolve();
      }),
    );
    return await fs.readFile(outFile);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
