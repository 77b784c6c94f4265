/**
 * Protects a PDF with AES-256 (ISO 32000-2 security handler revision 6, crypt filter AESV3): a user password
 * to open it (or none), an owner password, and what a reader may do without the owner password. Extraction
 * for accessibility (P bit 10) is always allowed: screen readers must read the text. PDF/A forbids
 * encryption (6.1.3 of parts 2 and 3), so a PDF/A claim (and Factur-X, which builds on it) is taken out of
 * the XMP while encrypting; `protectionClaims` tells the caller what remains claimed. The file is encrypted
 * here, in one pass over its objects (write-encrypted.ts); qpdf only normalises a layout the reader cannot
 * take (readPart).
 */
import { xmpClaims, xmpText, xmpWithClaims } from '../assemble/assembly-claims.js';
import { readPart } from '../assemble/read-part.js';
import type { PdfFile } from '../profiles/pdf-file.js';
import { dict, isDict, name, type PdfDict, PdfRef, raw } from '../profiles/pdf-objects.js';
import type { Claim, ConformanceIssue } from '../profiles/types.js';
import { newSecurityHandler, type Permission, permissionBits } from './aes-256.js';
import { type Replacement, writeEncrypted } from './write-encrypted.js';

export type { Permission } from './aes-256.js';

/** Every permission, in the order the docs list them. */
export const PERMISSIONS: readonly Permission[] = ['print', 'copy', 'modify', 'annotate', 'fill-forms', 'assemble'];

/** How to protect: passwords (UTF-8, no line breaks) and the permissions granted. */
export interface ProtectOptions {
  /** Needed to open the PDF; none (or empty) means anyone may open it, the permissions still apply. */
  userPassword?: string;
  ownerPassword: string;
  allow?: readonly Permission[];
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

/**
 * The catalog and XMP the protected file has: any PDF/A or Factur-X claim taken out of the XMP (the XMP left
 * out when a claim cannot be removed with certainty), and, below PDF 2.0, the Adobe extension level 8 that
 * brings AES-256 to PDF 1.7 (as qpdf declares it).
 */
function protectedCatalog(file: PdfFile): Map<number, Replacement | null> {
  const replaced = new Map<number, Replacement | null>();
  const catalog = file.catalog();
  const value = new Map(catalog.value);
  const xmp = xmpText(file);
  const claims = xmpClaims(xmp);
  const kept = protectionClaims(claims).claims;
  const metadata = value.get('Metadata');
  if (kept.length !== claims.length && metadata instanceof PdfRef) {
    const edited = xmpWithClaims(xmp, kept);
    if (edited) replaced.set(metadata.num, { value: dict({ Type: name('Metadata'), Subtype: name('XML') }), data: edited });
    else {
      value.delete('Metadata');
      replaced.set(metadata.num, null);
    }
  }
  if (!file.text.startsWith('%PDF-2')) {
    const extensions = file.dict(value.get('Extensions'));
    const withAdbe: PdfDict = new Map(extensions ?? []);
    if (!isDict(withAdbe.get('ADBE'))) withAdbe.set('ADBE', dict({ BaseVersion: name('1.7'), ExtensionLevel: raw(8) }));
    value.set('Extensions', withAdbe);
  }
  replaced.set(catalog.num, { value });
  return replaced;
}

/** The PDF encrypted with AES-256 (R6); throws RangeError for a password that cannot be used. */
export async function protectPdf(pdf: Uint8Array, opts: ProtectOptions): Promise<Uint8Array> {
  return (await protectPdfWithKey(pdf, opts)).pdf;
}

/** protectPdf, with the file key, which lets a signature of the same request skip the password hashes. */
export async function protectPdfWithKey(pdf: Uint8Array, opts: ProtectOptions): Promise<{ pdf: Buffer; fileKey: Buffer }> {
  const user = opts.userPassword ?? '';
  if (!opts.ownerPassword) throw new RangeError('an owner password is required');
  if (/[\r\n\0]/.test(user + opts.ownerPassword)) throw new RangeError('a password must not contain line breaks or NUL');
  const file = await readPart(pdf, 'pdf');
  const handler = newSecurityHandler(user, opts.ownerPassword, permissionBits(opts.allow ?? []));
  return { pdf: writeEncrypted(file, { replaced: protectedCatalog(file), ...handler }), fileKey: handler.key };
}
