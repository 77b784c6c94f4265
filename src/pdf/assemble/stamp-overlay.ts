/**
 * Stamps laid on an assembly's pages, in an incremental update: each page of a stamp's PDF (rendered by
 * Chromium, one page per stamped page) becomes a form XObject with its own resources (its fonts copied
 * along, so they stay embedded), drawn over or under the page's content inside an `/Artifact` marked
 * content sequence (pagination, or a watermark under the content), so a screen reader and the structure
 * tree ignore it while its text stays searchable. Marked content the stamp's render tagged is turned into
 * plain artifacts: inside an artifact nothing may belong to the structure tree.
 */
import zlib from 'node:zlib';
import { PdfFile } from '../profiles/pdf-file.js';
import { dict, isDict, name, type PdfDict, PdfRef, type PdfValue, raw } from '../profiles/pdf-objects.js';
import type { ConformanceIssue } from '../profiles/types.js';
import { placement, visibleBox } from './page-boxes.js';
import { type StampChecks, type StampPlace, stampIssues, withoutBrokenClaims } from './stamp-claims.js';

/** One rendered stamp: its PDF, and where it goes (its name, pages and layer). */
export interface StampLayer extends StampPlace {
  /** One page per target, in order. */
  pdf: Uint8Array;
}

/** Tagged marked content (`/P <</MCID 3>> BDC`) as plain marked content: the stamp is an artifact whole. */
function untagged(content: string): string {
  return content.replace(/\/[A-Za-z0-9_.-]{1,64}\s*<<\s*\/MCID\s+\d{1,9}\s*>>\s*BDC/g, '/Artifact BMC');
}

/** Copies objects of the stamp's file into the assembly's update, each once. */
class StampCopier {
  private readonly map = new Map<number, PdfRef>();
  constructor(
    private readonly from: PdfFile,
    private readonly into: PdfFile,
  ) {}

  value(value: PdfValue | undefined): PdfValue {
    if (value === undefined) return raw('null');
    if (value instanceof PdfRef) return this.ref(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (!isDict(value)) return value;
    const out: PdfDict = new Map();
    // A stamp's fonts and images point back to nothing; /Parent and /StructParent(s) would.
    for (const [key, v] of value)
      if (key !== 'Parent' && key !== 'StructParents' && key !== 'StructParent') out.set(key, this.value(v));
    return out;
  }

  private ref(ref: PdfRef): PdfValue {
    const known = this.map.get(ref.num);
    if (known) return known;
    const object = this.from.get(ref.num);
    if (!object) return raw('null');
    // Reserved first, so a cycle (a font naming itself) ends.
    const placeholder = this.into.add(raw('null'));
    this.map.set(ref.num, placeholder);
    const value = this.value(object.value);
    if (object.stream) {
      const data = this.from.bytes.subarray(object.stream.start, object.stream.start + object.stream.length);
      this.into.set(placeholder.num, value, Buffer.from(data));
    } else this.into.set(placeholder.num, value);
    return placeholder;
  }
}

/** The content of a stamp page, decoded (every stream of /Contents in order). */
function pageContent(file: PdfFile, page: PdfDict): string {
  const contents = file.resolve(page.get('Contents'));
  const refs = Array.isArray(contents) ? contents : [page.get('Contents')];
  return refs.map((r) => (r instanceof PdfRef ? (file.streamData(r.num)?.toString('latin1') ?? '') : '')).join('\n');
}

/**
 * The assembly with every stamp laid on its pages, and why it no longer makes a claim of `checks.claims`
 * a stamp breaks (stamp-claims.ts: that claim is then cut out of its XMP).
 */
export function overlayStamps(
  pdf: Uint8Array,
  stamps: readonly StampLayer[],
  checks: StampChecks = { claims: [] },
): { pdf: Buffer; issues: ConformanceIssue[] } {
  const file = new PdfFile(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  const found: ConformanceIssue[] = [];
  const pages = file.pages();
  const edits = new Map<number, { page: PdfDict; xobjects: PdfDict; before: string[]; after: string[] }>();
  let serial = 0;
  for (const stamp of stamps) {
    const source = new PdfFile(Buffer.from(stamp.pdf.buffer, stamp.pdf.byteOffset, stamp.pdf.byteLength));
    const contents = source.pages().map((num) => pageContent(source, source.dict(source.refTo(num)) as PdfDict));
    found.push(...stampIssues(source, contents, stamp, checks));
    const copier = new StampCopier(source, file);
    source.pages().forEach((num, i) => {
      const target = pages[stamp.targets[i]];
      if (target === undefined) return;
      const page = source.dict(source.refTo(num)) as PdfDict;
      const box = visibleBox(source, num);
      const content = zlib.deflateSync(Buffer.from(untagged(contents[i]), 'latin1'));
      const form = file.add(
        dict({
          Type: name('XObject'),
          Subtype: name('Form'),
          BBox: [raw(box.x), raw(box.y), raw(box.x + box.width), raw(box.y + box.height)],
          Resources: copier.value(page.get('Resources')),
          Filter: name('FlateDecode'),
        }),
        content,
      );
      let edit = edits.get(target);
      if (!edit) {
        const current = file.dict(file.refTo(target)) as PdfDict;
        const resources: PdfDict = new Map(file.dict(current.get('Resources')) ?? []);
        const xobjects: PdfDict = new Map(file.dict(resources.get('XObject')) ?? []);
        edit = { page: new Map(current), xobjects, before: [], after: [] };
        edits.set(target, edit);
      }
      const at = placement(visibleBox(file, target)).join(' ');
      const key = `PwStamp${++serial}`;
      edit.xobjects.set(key, form);
      const kind = stamp.layer === 'under' ? '<</Type /Pagination /Subtype /Watermark>>' : '<</Type /Pagination>>';
      const draw = `/Artifact ${kind} BDC q ${at} cm 1 0 0 1 ${-box.x} ${-box.y} cm /${key} Do Q EMC\n`;
      (stamp.layer === 'under' ? edit.before : edit.after).push(draw);
    });
  }
  for (const [num, edit] of edits) {
    const resources: PdfDict = new Map(file.dict(edit.page.get('Resources')) ?? []);
    resources.set('XObject', edit.xobjects);
    edit.page.set('Resources', resources);
    const contents = file.resolve(edit.page.get('Contents'));
    const original = Array.isArray(contents)
      ? contents
      : edit.page.has('Contents')
        ? [edit.page.get('Contents') as PdfValue]
        : [];
    // The page's own content runs inside q … Q, so nothing it leaves set (a matrix, a colour) moves the stamps.
    const open = file.add(new Map(), Buffer.from(`${edit.before.join('')}q\n`, 'latin1'));
    const close = file.add(new Map(), Buffer.from(`\nQ\n${edit.after.join('')}`, 'latin1'));
    edit.page.set('Contents', [open, ...original, close]);
    file.set(num, edit.page);
  }
  const issues = found.length === 0 ? [] : withoutBrokenClaims(file, checks.claims, found);
  return { pdf: file.finish(new Map()), issues };
}
