/**
 * Stamps laid on an assembly's pages, in an incremental update: each page of a stamp's PDF (rendered by
 * Chromium, one page per stamped page) becomes a form XObject with its own resources (its fonts copied
 * along, so they stay embedded), drawn over or under the page's content inside an `/Artifact` marked
 * content sequence (pagination, or a watermark under the content), so a screen reader and the structure
 * tree ignore it while its text stays searchable. Marked content the stamp's render tagged is turned into
 * plain artifacts: inside an artifact nothing may belong to the structure tree.
 */
import zlib from 'node:zlib';
import { scanContent } from '../profiles/content-scan.js';
import { notdefIssues, unicodeIssues } from '../profiles/page-checks.js';
import { pagePass } from '../profiles/page-pass.js';
import { PdfFile } from '../profiles/pdf-file.js';
import { dict, isDict, name, type PdfDict, type PdfRaw, PdfRef, type PdfValue, raw } from '../profiles/pdf-objects.js';
import type { Claim, ConformanceIssue } from '../profiles/types.js';
import { xmpText, xmpWithClaims } from './assembly-claims.js';

/**
 * The part of a page a reader sees: its crop box (its media box when it has none), where it starts and its
 * size in points of the page's own space, and `rotate`, the degrees clockwise a viewer turns it (0, 90, 180
 * or 270).
 */
export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
  rotate: number;
}

/** One rendered stamp: its PDF, where it goes, and whether over or under the content. */
export interface StampLayer {
  /** The stamp as the request names it (`stamps[1]`). */
  label: string;
  pdf: Uint8Array;
  /** For each page of `pdf`, in order, the index (from 0) of the assembly's page it is laid on. */
  targets: readonly number[];
  layer: 'over' | 'under';
}

/** A page's entry, its own or the nearest one its page tree gives it (MediaBox, CropBox and Rotate inherit). */
function inherited(file: PdfFile, num: number, key: string): PdfValue | undefined {
  let node = file.dict(file.refTo(num));
  for (let depth = 0; node && depth < 32; depth++) {
    const value = node.get(key);
    if (value !== undefined) return file.resolve(value);
    node = file.dict(node.get('Parent'));
  }
  return undefined;
}

/** A rectangle entry as its lower-left and upper-right corners (they may be written in either order). */
function rectangle(file: PdfFile, value: PdfValue | undefined): [number, number, number, number] | undefined {
  const v = file.resolve(value);
  if (!Array.isArray(v) || v.length !== 4) return undefined;
  const [a, b, c, d] = v.map((n) => Number((file.resolve(n) as PdfRaw | undefined)?.text ?? Number.NaN));
  if (![a, b, c, d].every(Number.isFinite) || a === c || b === d) return undefined;
  return [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
}

/**
 * The box a reader sees of a page: its crop box within its media box (a crop box reaching past the media
 * box is cut to it, as readers show it), US Letter when it has no media box; and its rotation.
 */
function visibleBox(file: PdfFile, num: number): PageBox {
  const media = rectangle(file, inherited(file, num, 'MediaBox')) ?? [0, 0, 612, 792];
  const crop = rectangle(file, inherited(file, num, 'CropBox'));
  let [x0, y0, x1, y1] = media;
  if (crop) {
    const cut = [Math.max(x0, crop[0]), Math.max(y0, crop[1]), Math.min(x1, crop[2]), Math.min(y1, crop[3])];
    if (cut[0] < cut[2] && cut[1] < cut[3]) [x0, y0, x1, y1] = cut;
  }
  const degrees = Number((inherited(file, num, 'Rotate') as PdfRaw | undefined)?.text ?? 0);
  // A rotation that is not a multiple of 90 is an error readers ignore.
  const rotate = Number.isInteger(degrees) && degrees % 90 === 0 ? ((degrees % 360) + 360) % 360 : 0;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rotate };
}

/**
 * The matrix that lays a stamp made at the page's viewed size, its lower-left corner at the origin, on the
 * page's own space so that it stands upright in the reader: the page turns `rotate` degrees clockwise when
 * shown, so the stamp is turned as far the other way, from the corner the reader sees at the lower left.
 */
function placement(box: PageBox): [number, number, number, number, number, number] {
  const [x0, y0, x1, y1] = [box.x, box.y, box.x + box.width, box.y + box.height];
  if (box.rotate === 90) return [0, 1, -1, 0, x1, y0];
  if (box.rotate === 180) return [-1, 0, 0, -1, x1, y1];
  if (box.rotate === 270) return [0, -1, 1, 0, x0, y1];
  return [1, 0, 0, 1, x0, y0];
}

/** Each page's box, in order. */
export function pageBoxes(pdf: Uint8Array): PageBox[] {
  const file = new PdfFile(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  return file.pages().map((num) => visibleBox(file, num));
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
 * What a stamp's glyphs break of `claims`: a .notdef glyph breaks PDF/A and PDF/UA, a glyph without Unicode
 * PDF/UA and the "u" levels. A stamp is text on the page like any other, whatever its artifact marking;
 * the pages named are the assembly's.
 */
function stampGlyphIssues(source: PdfFile, stamp: StampLayer, claims: readonly Claim[]): ConformanceIssue[] {
  const profiles = claims.filter((c) => c === 'PDF/UA-1' || c.startsWith('PDF/A-'));
  if (profiles.length === 0) return [];
  const unicodeFor = profiles.filter((c) => c === 'PDF/UA-1' || /^PDF\/A-[23]u$/.test(c));
  const pass = pagePass(source, {
    artifacts: false,
    unicode: unicodeFor.length > 0,
    notdef: true,
    stringLength: false,
    mcids: new Map(),
  });
  const onAssembly = <T extends { page: number }>(found: T): T => ({ ...found, page: (stamp.targets[found.page - 1] ?? 0) + 1 });
  const issues = [
    ...notdefIssues({ notdefFonts: pass.notdefFonts.map(onAssembly) }, profiles),
    ...unicodeIssues({ fontsWithoutUnicode: pass.fontsWithoutUnicode.map(onAssembly) }, unicodeFor),
  ];
  return issues.map((issue) => ({
    ...issue,
    element: stamp.label,
    message: `${stamp.label}: ${issue.message}; the stamp is drawn on the page, so the assembly does not claim ${issue.profile}`,
  }));
}

/** Operators that paint over what is under them: fills, shadings, images and forms. Text does not hide text. */
const COVERING = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'sh', 'Do', 'BI', 'EI']);

/** Whether a content stream paints anything but text (and lines). */
function paintsOver(content: string): boolean {
  let found = false;
  scanContent(content, (op) => {
    found ||= COVERING.has(op.op);
  });
  return found;
}

/**
 * Why a stamp laid over the invoice's pages keeps the assembly from Factur-X: a box, a background or an
 * image drawn over them can cover the amount due or the invoice number, which a reader must see, and
 * where it falls is not known here. Text over them and anything under them leave the invoice shown.
 */
function coverIssue(stamp: StampLayer, contents: string[], invoicePages: number | undefined): ConformanceIssue[] {
  if (stamp.layer !== 'over') return [];
  const k = contents.findIndex(
    (content, i) => (invoicePages === undefined || stamp.targets[i] < invoicePages) && paintsOver(content),
  );
  if (k < 0) return [];
  return [
    {
      profile: 'Factur-X',
      clause: 'Factur-X 1.0',
      element: stamp.label,
      message:
        `${stamp.label}: it paints over the invoice's page ${stamp.targets[k] + 1} (a box, a background or an image), which can ` +
        'cover the amount due or the invoice number a reader must see, so the assembly does not claim Factur-X: lay it ' +
        'under the content ("layer": "under"), or keep what it draws over the invoice to text',
    },
  ];
}

/**
 * The claims of `claims` that `issues` leave, and an issue for Factur-X when the PDF/A-3 claim it stands on
 * goes: a Factur-X invoice is a PDF/A-3 file.
 */
function claimsLeft(claims: readonly Claim[], issues: ConformanceIssue[]): { left: Claim[]; issues: ConformanceIssue[] } {
  const withheld = new Set(issues.map((i) => i.profile));
  const out = [...issues];
  if (claims.includes('Factur-X') && claims.some((c) => c.startsWith('PDF/A-3') && withheld.has(c))) {
    withheld.add('Factur-X');
    out.push({
      profile: 'Factur-X',
      clause: 'Factur-X 1.0',
      element: issues[0].element,
      message: `${issues[0].element}: a Factur-X invoice is a PDF/A-3 file, so without that claim the assembly does not claim Factur-X`,
    });
  }
  return { left: claims.filter((c) => !withheld.has(c)), issues: out };
}

/**
 * The assembly with every stamp laid on its pages, and why it no longer makes a claim of `claims` a
 * stamp breaks (that claim is then cut out of its XMP).
 */
export function overlayStamps(
  pdf: Uint8Array,
  stamps: readonly StampLayer[],
  checks: { claims: readonly Claim[]; invoicePages?: number } = { claims: [] },
): { pdf: Buffer; issues: ConformanceIssue[] } {
  const { claims } = checks;
  const file = new PdfFile(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  const found: ConformanceIssue[] = [];
  const pages = file.pages();
  const edits = new Map<number, { page: PdfDict; xobjects: PdfDict; before: string[]; after: string[] }>();
  let serial = 0;
  for (const stamp of stamps) {
    const source = new PdfFile(Buffer.from(stamp.pdf.buffer, stamp.pdf.byteOffset, stamp.pdf.byteLength));
    found.push(...stampGlyphIssues(source, stamp, claims));
    const copier = new StampCopier(source, file);
    const contents = source.pages().map((num) => pageContent(source, source.dict(source.refTo(num)) as PdfDict));
    if (claims.includes('Factur-X')) found.push(...coverIssue(stamp, contents, checks.invoicePages));
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
  if (found.length === 0) return { pdf: file.finish(new Map()), issues: [] };
  const { left, issues } = claimsLeft(claims, found);
  const catalog = file.catalog();
  const root: PdfDict = new Map(catalog.value);
  const edited = xmpWithClaims(xmpText(file), left);
  if (edited) root.set('Metadata', file.add(dict({ Type: name('Metadata'), Subtype: name('XML') }), edited));
  else {
    // A claim that cannot be cut out of the XMP with certainty leaves the file without one, and without its claims.
    root.delete('Metadata');
    for (const claim of left)
      issues.push({
        profile: claim,
        clause: 'assembly',
        element: issues[0].element,
        message: `${issues[0].element}: the XMP could not be edited with certainty, so the assembly carries none and does not claim ${claim}`,
      });
  }
  file.set(catalog.num, root);
  return { pdf: file.finish(new Map()), issues };
}
