/**
 * Assembles parts' PDFs into one: their pages in order under one page tree, one outline with an entry per
 * part and the part's own outline beneath it, one structure tree holding every part's (parent tree keys
 * shifted, IDs and named destinations renamed where parts collide), attachments and associated files kept,
 * every part's layers in the state it gave them (optional-content.ts), form fields (form-fields.ts) and page
 * labels (page-labels.ts), the first part's Info, language, viewer preferences and output intent, and an XMP
 * that claims only what assembly-claims.ts allows. What a part carries that acts on its reader is left out
 * (active-content.ts).
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import {
  dict,
  isDict,
  name,
  nameOf,
  type PdfDict,
  PdfName,
  PdfRaw,
  PdfRef,
  type PdfValue,
  raw,
  stringText,
} from '../profiles/pdf-objects.js';
import type { Claim, ConformanceIssue } from '../profiles/types.js';
import { type ActiveContentFinding, findActiveContent } from './active-content.js';
import { decideClaims, xmpText, xmpWithClaims } from './assembly-claims.js';
import { FormFields } from './form-fields.js';
import { InvoiceFiles, secondInvoiceIssue } from './invoice-files.js';
import { OptionalContent } from './optional-content.js';
import { PageLabels } from './page-labels.js';
import { mergeInto, outlineItem, pagesOf, renames, titleOf } from './pages-and-outline.js';
import { PartCopier } from './part-copier.js';
import { PdfWriter } from './pdf-writer.js';
import { AssembleInputError, damaged, liftedRestrictions, readPart } from './read-part.js';
import { structRootOf } from './struct-index.js';
import { flatNameTree, flatNumberTree, nameKey, nameTreeEntries, numberTreeEntries, uniqueKey } from './trees.js';

/** One part: its PDF, the label errors and warnings name it by, and what is known of it. */
export interface AssemblePart {
  pdf: Uint8Array;
  /** How errors and conformance issues name the part, e.g. `parts[2]`. */
  label: string;
  /** The part's outline entry; else its Info /Title; else `Part N`. */
  title?: string;
  /**
   * What the part is known to meet: the claims its render made in this request. Leave it out for an existing
   * PDF: its own XMP claim is not proof, so such a part makes the assembly claim nothing.
   */
  claims?: readonly Claim[];
}

/** The assembly, what it claims, and why anything a part claimed is not claimed. */
export interface AssembleResult {
  pdf: Uint8Array;
  claims: Claim[];
  issues: ConformanceIssue[];
  pages: number;
  /** Each part's page count, in order. */
  partPages: number[];
  /** What parts carried that acts on the reader (removed), their attachments (kept) and owners' restrictions (not kept), naming the part. */
  content: Array<ActiveContentFinding & { label: string }>;
  /** Each part's outline entry, in order. */
  partTitles: string[];
}

/**
 * Assembles the parts in order into one PDF; a part that cannot be read throws AssembleInputError.
 * `reading` hears the label of each part as the work on it starts, null between (a deadline can say where the time went).
 */
export async function assemblePdfs(
  parts: readonly AssemblePart[],
  hooks: { reading?: (label: string | null) => void } = {},
): Promise<AssembleResult> {
  if (parts.length === 0) throw new RangeError('assemblePdfs needs at least one part');
  const files: PdfFile[] = [];
  for (const part of parts) {
    hooks.reading?.(part.label);
    files.push(await readPart(part.pdf, part.label));
  }
  hooks.reading?.(null);
  const decision = decideClaims(parts.map((p, i) => ({ label: p.label, file: files[i], known: p.claims })));
  const ua = decision.claims.includes('PDF/UA-1');

  const out = new PdfWriter();
  const catalogRef = out.allocate();
  const pagesRef = out.allocate();
  const outlinesRef = out.allocate();
  // The first read of a part's structure tree: an object there that cannot be read is the part's damage, named.
  const tagged = files.map((f, k) => {
    try {
      return structRootOf(f, f.catalog().value) !== undefined;
    } catch (error) {
      throw damaged(parts[k].label, (error as Error).message);
    }
  });
  const structRef = tagged.some(Boolean) ? out.allocate() : undefined;
  // One Document element holds every part (a structure tree root has one child, as poppler and PDF 2.0
  // expect); each part's own Document becomes a Part beneath it.
  const documentRef = structRef ? out.allocate() : undefined;
  const catalogs = files.map((f) => f.catalog().value);
  const firstLang = catalogs[0].get('Lang');
  const lang = firstLang instanceof PdfRaw ? firstLang.text : undefined;

  const pageRefs: PdfValue[] = [];
  const partPages: number[] = [];
  const partTitles: string[] = [];
  const items: Array<{ ref: PdfRef; entry: PdfDict }> = [];
  const structKids: PdfValue[] = [];
  const parentTree: Array<[number, PdfValue]> = [];
  const roleMap: PdfDict = new Map();
  const classMap: PdfDict = new Map();
  const taken = { dests: new Set<string>(), ids: new Set<string>(), files: new Set<string>() };
  const dests: Array<[string, PdfValue]> = [];
  const ids: Array<[string, PdfValue]> = [];
  const embedded: Array<[string, PdfValue]> = [];
  const af: PdfValue[] = [];
  const catalogExtras: PdfDict = new Map();
  let info: PdfValue | undefined;
  let structOffset = 0;
  const content: AssembleResult['content'] = [];
  const invoices = new InvoiceFiles();
  const layers = new OptionalContent();
  const forms = new FormFields();
  const labels = new PageLabels();

  for (let k = 0; k < parts.length; k++) {
    hooks.reading?.(parts[k].label);
    // Anything unreadable past the checks at opening (a malformed object) is the part's damage, named.
    try {
      const file = files[k];
      const catalog = catalogs[k];
      const names = file.dict(catalog.get('Names'));
      const partDests = nameTreeEntries(file, names?.get('Dests'));
      const oldDests = file.dict(catalog.get('Dests'));
      if (oldDests) for (const [key, v] of oldDests) partDests.push([nameKey(new PdfName(key)), v]);
      const struct = structRootOf(file, catalog);
      const partIds = nameTreeEntries(file, struct?.get('IDTree'));
      const restrictions = liftedRestrictions(file);
      if (restrictions.length > 0)
        content.push({ content: 'permissions', count: 1, places: [...restrictions], label: parts[k].label });
      const active = findActiveContent(file);
      for (const finding of active.findings()) {
        // A part rendered in this request embeds only what its document linked, which its own report already names.
        if (finding.content === 'attachment' && parts[k].claims !== undefined) continue;
        content.push({ ...finding, label: parts[k].label });
      }
      const copier = new PartCopier(file, out, parts[k].label, {
        structParentOffset: structOffset,
        dests: renames(partDests, taken.dests, k + 1),
        ids: renames(partIds, taken.ids, k + 1),
        ...(active.removesAnything ? { active } : {}),
      });
      const root = file.trailer.get('Root');
      if (root instanceof PdfRef) copier.redirect(root.num, catalogRef, 'the catalog');
      const partFiles = nameTreeEntries(file, names?.get('EmbeddedFiles'));
      const invoiceRenames = invoices.plan(file, copier, partFiles, catalog.get('AF'), parts[k].label, k + 1, taken.files);

      const first = pageRefs.length;
      // One by one: a spread of a few hundred thousand pages would overflow the stack.
      for (const page of pagesOf(file, copier, pagesRef)) pageRefs.push(page);
      partPages.push(pageRefs.length - first);
      labels.add(file, copier, catalog, first, pageRefs.length - first);
      const title = titleOf(parts[k].title, file, k);
      partTitles.push(stringText(title.text));
      items.push(outlineItem(file, copier, out, { catalog, outlinesRef, firstPage: pageRefs[first], title }));

      if (struct) {
        const structNum = catalog.get('StructTreeRoot');
        if (structNum instanceof PdfRef && documentRef) copier.redirect(structNum.num, documentRef, 'the structure tree root');
        const partLang = catalog.get('Lang');
        for (const kid of file.kids(struct.get('K'))) {
          const kidDict = file.dict(kid);
          if (kid instanceof PdfRef && kidDict) {
            const changed = new Map(kidDict);
            if (nameOf(kidDict.get('S')) === 'Document') changed.set('S', name('Part'));
            // A part in another language than the first says so on its own element.
            if (partLang instanceof PdfRaw && partLang.text !== lang && !kidDict.has('Lang')) changed.set('Lang', partLang);
            copier.override(kid.num, changed);
          }
          structKids.push(copier.value(kid));
        }
        const entries = numberTreeEntries(file, struct.get('ParentTree'));
        for (const [key, v] of entries) parentTree.push([key + structOffset, copier.value(v)]);
        const next = Number((file.resolve(struct.get('ParentTreeNextKey')) as PdfRaw | undefined)?.text ?? 0) || 0;
        structOffset += Math.max(next, ...entries.map(([key]) => key + 1), 0);
        mergeInto(roleMap, file.dict(struct.get('RoleMap')), copier);
        mergeInto(classMap, file.dict(struct.get('ClassMap')), copier);
      }
      for (const [key, v] of partDests) dests.push([copier.rules.dests.get(key) ?? key, copier.value(v)]);
      for (const [key, v] of partIds) ids.push([copier.rules.ids.get(key) ?? key, copier.value(v)]);
      for (const [key, v] of partFiles) {
        const unique = uniqueKey(invoiceRenames.keys.get(key) ?? key, taken.files, k + 1);
        taken.files.add(unique);
        embedded.push([unique, copier.value(invoiceRenames.direct.get(v) ?? v)]);
      }
      const partAf = file.resolve(catalog.get('AF'));
      if (Array.isArray(partAf)) for (const v of partAf) af.push(copier.value(v));
      if (k === 0) {
        info = file.trailer.has('Info') ? copier.value(file.trailer.get('Info')) : undefined;
        for (const key of ['ViewerPreferences', 'PageLayout', 'Lang'])
          if (catalog.has(key)) catalogExtras.set(key, copier.value(catalog.get(key)));
      }
      layers.add(file, copier, catalog);
      forms.add(file, copier, catalog, k + 1);
      if (!catalogExtras.has('OutputIntents') && catalog.has('OutputIntents'))
        catalogExtras.set('OutputIntents', copier.value(catalog.get('OutputIntents')));
      copier.drain();
    } catch (error) {
      if (error instanceof AssembleInputError) throw error;
      throw damaged(parts[k].label, (error as Error).message);
    }
  }
  hooks.reading?.(null);

  out.set(pagesRef, dict({ Type: name('Pages'), Kids: pageRefs, Count: raw(pageRefs.length) }));
  out.set(
    outlinesRef,
    dict({ Type: name('Outlines'), First: items[0].ref, Last: items[items.length - 1].ref, Count: raw(items.length) }),
  );
  items.forEach(({ ref, entry }, i) => {
    if (i > 0) entry.set('Prev', items[i - 1].ref);
    if (i < items.length - 1) entry.set('Next', items[i + 1].ref);
    out.set(ref, entry);
  });
  const catalog: PdfDict = dict({
    Type: name('Catalog'),
    Pages: pagesRef,
    Outlines: outlinesRef,
    PageMode: name('UseOutlines'),
  });
  for (const [key, v] of catalogExtras) catalog.set(key, v);
  const ocProperties = layers.properties();
  if (ocProperties) catalog.set('OCProperties', ocProperties);
  const acroForm = forms.form();
  if (acroForm) catalog.set('AcroForm', acroForm);
  const pageLabels = labels.tree();
  if (pageLabels) catalog.set('PageLabels', out.add(pageLabels));
  if (structRef && documentRef) {
    const document = dict({ Type: name('StructElem'), S: name('Document'), P: structRef, K: structKids });
    if (catalogExtras.has('Lang')) document.set('Lang', catalogExtras.get('Lang') as PdfValue);
    out.set(documentRef, document);
    const root: PdfDict = dict({
      Type: name('StructTreeRoot'),
      K: documentRef,
      ParentTree: out.add(flatNumberTree(parentTree)),
      ParentTreeNextKey: raw(structOffset),
    });
    if (ids.length) root.set('IDTree', out.add(flatNameTree(ids)));
    if (roleMap.size) root.set('RoleMap', roleMap);
    if (classMap.size) root.set('ClassMap', classMap);
    out.set(structRef, root);
    catalog.set('StructTreeRoot', structRef);
    catalog.set('MarkInfo', dict({ Marked: raw(tagged.every(Boolean)) }));
  }
  const namesDict: PdfDict = new Map();
  if (dests.length) namesDict.set('Dests', out.add(flatNameTree(dests)));
  if (embedded.length) namesDict.set('EmbeddedFiles', out.add(flatNameTree(embedded)));
  if (namesDict.size) catalog.set('Names', namesDict);
  if (af.length) catalog.set('AF', af);
  if (ua) {
    const prefs = isDict(catalog.get('ViewerPreferences')) ? (catalog.get('ViewerPreferences') as PdfDict) : new Map();
    prefs.set('DisplayDocTitle', raw(true));
    catalog.set('ViewerPreferences', prefs);
  }
  // A factur-x.xml that kept its name beside the invoice: a receiver may book either, so no Factur-X.
  if (invoices.unrenamed.length > 0 && decision.claims.includes('Factur-X')) {
    decision.claims.splice(decision.claims.indexOf('Factur-X'), 1);
    decision.issues.push(secondInvoiceIssue(invoices.unrenamed));
  }
  hooks.reading?.(parts[0].label);
  const xmp = xmpWithClaims(xmpText(files[0]), decision.claims);
  hooks.reading?.(null);
  if (xmp) catalog.set('Metadata', out.add(dict({ Type: name('Metadata'), Subtype: name('XML') }), xmp));
  out.set(catalogRef, catalog);
  const trailer: PdfDict = dict({ Root: catalogRef });
  if (info) trailer.set('Info', info);
  const version = files.some((f) => f.text.startsWith('%PDF-2')) ? '2.0' : '1.7';
  const pdf = out.finish(version, trailer);
  return {
    pdf,
    claims: decision.claims,
    issues: decision.issues,
    pages: pageRefs.length,
    partPages,
    partTitles,
    content,
  };
}
