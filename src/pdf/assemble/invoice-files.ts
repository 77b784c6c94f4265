/**
 * One invoice per file: a receiver takes the embedded file named `factur-x.xml`, and may take the first
 * of several, so an assembly carries at most one. The first met, in part order, keeps its name (in a
 * Factur-X assembly, the first part's invoice); every later one, named so by its name tree key, its /F
 * or its /UF, is renamed `factur-x-<part>.xml` wherever it is named: the key, /F, /UF and /Desc. A file
 * specification that cannot be rewritten (unreadable) leaves the name where it is: the assembly is then
 * not Factur-X, and the part is named.
 */
import { FACTUR_X_FILE_NAME } from '../factur-x/levels.js';
import type { PdfFile } from '../profiles/pdf-file.js';
import { type PdfDict, PdfRaw, PdfRef, type PdfValue, stringBytes, textString } from '../profiles/pdf-objects.js';
import type { ConformanceIssue } from '../profiles/types.js';
import type { PartCopier } from './part-copier.js';

/** A PDF text string's characters (UTF-16BE with its mark, UTF-8 with its mark, else PDFDocEncoding read as Latin-1). */
function textOf(value: PdfValue | undefined): string | undefined {
  if (!(value instanceof PdfRaw) || !/^[(<]/.test(value.text)) return undefined;
  const bytes = stringBytes(value.text);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return Buffer.from(bytes.subarray(2)).swap16().toString('utf16le');
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  return bytes.toString('latin1');
}

/** Whether a name is the invoice's (a receiver may compare it without regard to case). */
function isInvoiceName(name: string | undefined): boolean {
  return name !== undefined && name.trim().toLowerCase() === FACTUR_X_FILE_NAME;
}

/** A part's embedded files as the assembly writes them: new keys by old key, and direct file specifications replaced. */
export interface InvoiceRenames {
  keys: Map<string, string>;
  /** A file specification written in the name tree itself (no object of its own), renamed. */
  direct: Map<PdfValue, PdfDict>;
}

/** The factur-x.xml files of an assembly's parts, met in part order. */
export class InvoiceFiles {
  private kept = false;
  /** Labels of the parts whose factur-x.xml could not be renamed. */
  readonly unrenamed: string[] = [];

  /**
   * Renames the part's factur-x.xml files but the assembly's first: its name tree `entries` and the
   * file specifications its catalog's /AF lists. Object renames go to `copier` (call before it copies
   * anything); `taken` holds the keys earlier parts took.
   */
  plan(
    file: PdfFile,
    copier: PartCopier,
    entries: Array<[string, PdfValue]>,
    af: PdfValue | undefined,
    label: string,
    part: number,
    taken: Set<string>,
  ): InvoiceRenames {
    const renames: InvoiceRenames = { keys: new Map(), direct: new Map() };
    const seen = new Set<number>();
    const candidates: Array<{ key?: string; value: PdfValue }> = entries.map(([key, value]) => ({ key, value }));
    const listed = file.resolve(af);
    if (Array.isArray(listed)) for (const value of listed) candidates.push({ value });
    let n = 0;
    const fresh = (): string => {
      for (;;) {
        const name = `factur-x-${part}${n === 0 ? '' : `-${n}`}.xml`;
        n += 1;
        if (!taken.has(name)) return name;
      }
    };
    for (const { key, value } of candidates) {
      if (value instanceof PdfRef) {
        if (seen.has(value.num)) continue;
        seen.add(value.num);
      }
      const spec = file.dict(value);
      const named = isInvoiceName(key) || isInvoiceName(textOf(spec?.get('F'))) || isInvoiceName(textOf(spec?.get('UF')));
      if (!named) continue;
      if (!this.kept) {
        this.kept = true;
        continue;
      }
      const name = fresh();
      if (key !== undefined && isInvoiceName(key)) renames.keys.set(key, name);
      if (!spec) {
        this.unrenamed.push(label);
        continue;
      }
      const renamed: PdfDict = new Map(spec);
      for (const entry of ['F', 'UF'])
        if (spec.has(entry) && isInvoiceName(textOf(spec.get(entry)))) renamed.set(entry, textString(name));
      const desc = textOf(spec.get('Desc'));
      if (desc?.toLowerCase().includes(FACTUR_X_FILE_NAME))
        renamed.set('Desc', textString(desc.replace(/factur-x\.xml/gi, name)));
      if (value instanceof PdfRef) copier.override(value.num, renamed);
      else renames.direct.set(value, renamed);
    }
    return renames;
  }
}

/** The warning for parts whose factur-x.xml kept its name beside the invoice's. */
export function secondInvoiceIssue(labels: string[]): ConformanceIssue {
  const parts = [...new Set(labels)].join(', ');
  return {
    profile: 'Factur-X',
    clause: 'Factur-X 1.0',
    element: parts,
    message: `${parts} carries a second ${FACTUR_X_FILE_NAME} whose file specification could not be renamed, so the assembly is not Factur-X (a receiver could book either invoice): remove that attachment from the part, or assemble the invoice on its own`,
  };
}

/**
 * Why an assembly with a Factur-X part is not Factur-X, naming the parts that make it so and what to do:
 * several invoices; the invoice not first; or a part that keeps the assembly from PDF/A-3b, which Factur-X
 * is made on (an existing PDF, whose conformance Pageworks cannot verify, or a render that did not meet it).
 */
export function notFacturXIssue(
  parts: ReadonlyArray<{ label: string; known?: readonly string[] }>,
  invoices: ReadonlyArray<{ label: string }>,
  sameOutputIntent: boolean,
): ConformanceIssue {
  const issue = (element: string, message: string): ConformanceIssue => ({
    profile: 'Factur-X',
    clause: 'Factur-X 1.0',
    element,
    message,
  });
  const names = invoices.map((p) => p.label);
  if (invoices.length > 1) {
    return issue(
      names.join(', '),
      `${names.join(' and ')} are each a Factur-X invoice, and a file is one invoice: the assembly is not Factur-X (each XML is kept as an attachment). Assemble each invoice on its own, or accept that the assembly is not Factur-X`,
    );
  }
  const [invoice] = names;
  if (invoice !== parts[0]?.label) {
    return issue(
      invoice,
      `${invoice} is a Factur-X invoice but not the first part, and a Factur-X file begins with its invoice: the assembly is not Factur-X (its XML is kept as an attachment). Make the invoice parts[0], or accept that the assembly is not Factur-X`,
    );
  }
  const existing = parts.filter((p) => p.known === undefined).map((p) => p.label);
  const unmet = parts.filter((p) => p.known !== undefined && !p.known.includes('PDF/A-3b')).map((p) => p.label);
  const why = [
    existing.length > 0
      ? `${existing.join(', ')} ${existing.length > 1 ? 'are existing PDFs' : 'is an existing PDF'}, whose PDF/A-3b Pageworks cannot verify`
      : '',
    unmet.length > 0 ? `${unmet.join(', ')} did not meet PDF/A-3b` : '',
    !sameOutputIntent ? 'the parts carry different output intents' : '',
  ].filter((w) => w !== '');
  const culprits = [...existing, ...unmet];
  return issue(
    culprits.length > 0 ? culprits.join(', ') : invoice,
    `${invoice} is a Factur-X invoice, but the assembly is not PDF/A-3b, which Factur-X is made on (${why.join('; ') || 'its parts do not all meet it'}): the assembly is not Factur-X (the invoice's XML is kept as an attachment). ` +
      `To keep it Factur-X, put what ${culprits.length > 0 ? culprits.join(', ') : 'the other parts'} ${culprits.length > 1 ? 'hold' : 'holds'} (the terms, say) in an HTML part that declares PDF/A-3b; otherwise accept that the assembly is not Factur-X`,
  );
}
