/**
 * The candidate table of the extractor: for each field, the first element value that counts under the
 * metadata rules (docs/api.md#get-v1fetchurl), kept as a byte range of the chunk it was found in, and
 * turned into the eight fields at the end (decoded once, entities decoded, whitespace collapsed, URLs resolved).
 *
 * Decisions where the DOM rule needs one:
 * - `og_*`: a `<meta property=og:…>` anywhere wins over a `<meta name=og:…>`; `name` is only the fallback
 *   when no element has the property.
 * - A URL field whose first non-empty value does not parse as a URL is null (no later element is tried).
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities';
import type { Decoder } from './decoder.js';
import { isWs } from './html-scan.js';
import type { ScanSink } from './scanner.js';
import type { TagAttrs } from './tag-attrs.js';
import { collapseWhitespace, decodeReferences, defaultFavicon } from './text.js';
import type { Metadata } from './types.js';
import { resolveUrl } from './url-resolve.js';

// Slots of the table.
const TITLE = 0;
const DESC = 1;
const OG_PROP = 2; // 2..5: og:title, og:description, og:image, og:url by property
const OG_NAME = 6; // 6..9: the same by name (fallback)
const CANONICAL = 10;
const ICON = 11;
const APPLE = 12;
const BASE = 13;
const SLOTS = 14;
const OG_TAGS = ['og:title', 'og:description', 'og:image', 'og:url'];
/** Slots that must be filled before reading can stop early. */
const REQUIRED = new Set([TITLE, DESC, OG_PROP, OG_PROP + 1, OG_PROP + 2, OG_PROP + 3, CANONICAL, ICON]);
const UNSET = -2;
const NO_VALUE = -1;

/** A `ScanSink` that remembers the first value of each field; `buf` is the scanner's current byte window. */
export class Candidates implements ScanSink {
  /** The bytes the scanner's positions refer to; the extractor sets it before each scan. */
  buf: Buffer = Buffer.alloc(0);
  private readonly starts = new Int32Array(SLOTS).fill(UNSET);
  private readonly ends = new Int32Array(SLOTS);
  /** Where in the document the element of each value begins. */
  private readonly ats = new Float64Array(SLOTS);
  /** The window each value was found in (kept alive by reference, never copied). */
  private readonly bufs: Array<Buffer | null> = new Array<Buffer | null>(SLOTS).fill(null);
  /** Required fields not found yet. */
  missing = REQUIRED.size;

  /** Forgets everything (the document is rescanned after a change of encoding). */
  reset(): void {
    this.starts.fill(UNSET);
    this.bufs.fill(null);
    this.missing = REQUIRED.size;
  }

  /** Whether a `<base href>` has been seen. */
  get hasBase(): boolean {
    return this.starts[BASE] !== UNSET;
  }

  /** Lower-cased latin1 name of attribute `i` of the current tag. */
  attrName(attrs: TagAttrs, i: number): string {
    return this.buf.toString('latin1', attrs.pos[i * 4], attrs.pos[i * 4 + 1]).toLowerCase();
  }

  /** Attribute value for ASCII comparisons (latin1 + entities; non-ASCII bytes cannot match ASCII anyway). */
  attrText(attrs: TagAttrs, i: number): string {
    const s = attrs.pos[i * 4 + 2];
    if (s < 0) return '';
    const v = this.buf.toString('latin1', s, attrs.pos[i * 4 + 3]);
    return v.includes('&') ? decodeHTMLAttribute(v) : v;
  }

  /** Whether bytes [s, e) are empty after entity decoding and trimming of ASCII whitespace. */
  private blank(s: number, e: number, attr: boolean): boolean {
    const b = this.buf;
    let amp = false;
    for (let i = s; i < e; i++) {
      const c = b[i];
      if (c === 0x26) amp = true;
      else if (!isWs(c)) return false;
    }
    if (!amp) return true;
    const v = b.toString('latin1', s, e);
    return collapseWhitespace(attr ? decodeHTMLAttribute(v) : decodeHTML(v)) === '';
  }

  private fill(slot: number, s: number, e: number, at: number): void {
    if (this.starts[slot] !== UNSET) return;
    this.starts[slot] = s;
    this.ends[slot] = e;
    this.ats[slot] = at;
    this.bufs[slot] = this.buf;
    if (REQUIRED.has(slot)) this.missing--;
  }

  /** ScanSink: a `<frameset>` replaced the body that began at `at`; what was found in it is gone. */
  dropFrom(at: number): void {
    for (let slot = 0; slot < SLOTS; slot++) {
      if (this.starts[slot] === UNSET || this.ats[slot] < at) continue;
      this.starts[slot] = UNSET;
      this.bufs[slot] = null;
      if (REQUIRED.has(slot)) this.missing++;
    }
  }

  /** Whether a value was found in an element that begins at or after `at`. */
  foundFrom(at: number): boolean {
    for (let slot = 0; slot < SLOTS; slot++) if (this.starts[slot] !== UNSET && this.ats[slot] >= at) return true;
    return false;
  }

  /** ScanSink: a `<meta>` element. */
  meta(attrs: TagAttrs, inTemplate: boolean, at: number): void {
    if (inTemplate) return;
    const b = this.buf;
    const c = attrs.find(b, 'content');
    if (c < 0) return;
    const s = attrs.pos[c * 4 + 2];
    const e = attrs.pos[c * 4 + 3];
    if (s < 0 || this.blank(s, e, true)) return;
    const n = attrs.find(b, 'name');
    const name = n >= 0 ? this.attrText(attrs, n).toLowerCase() : '';
    const p = attrs.find(b, 'property');
    const prop = p >= 0 ? this.attrText(attrs, p).toLowerCase() : '';
    if (name === 'description') this.fill(DESC, s, e, at);
    for (let i = 0; i < 4; i++) {
      if (prop === OG_TAGS[i]) this.fill(OG_PROP + i, s, e, at);
      if (name === OG_TAGS[i]) this.fill(OG_NAME + i, s, e, at);
    }
  }

  /** ScanSink: a `<link>` element. */
  link(attrs: TagAttrs, at: number): void {
    const b = this.buf;
    const r = attrs.find(b, 'rel');
    const h = attrs.find(b, 'href');
    if (r < 0 || h < 0) return;
    const s = attrs.pos[h * 4 + 2];
    const e = attrs.pos[h * 4 + 3];
    if (s < 0 || this.blank(s, e, true)) return;
    const tokens = this.attrText(attrs, r)
      .toLowerCase()
      .split(/[\t\n\f\r ]+/);
    if (tokens.includes('canonical')) this.fill(CANONICAL, s, e, at);
    if (tokens.includes('icon')) this.fill(ICON, s, e, at);
    if (tokens.includes('apple-touch-icon') || tokens.includes('apple-touch-icon-precomposed')) this.fill(APPLE, s, e, at);
  }

  /** ScanSink: a `<base>` element; the first one with an `href` (even empty) sets the base URL. */
  base(attrs: TagAttrs, at: number): void {
    const h = attrs.find(this.buf, 'href');
    if (h < 0 || this.starts[BASE] !== UNSET) return;
    const s = attrs.pos[h * 4 + 2];
    this.fill(BASE, s < 0 ? NO_VALUE : s, s < 0 ? NO_VALUE : attrs.pos[h * 4 + 3], at);
  }

  /** ScanSink: the text of an HTML `<title>`. */
  title(start: number, end: number, at: number): void {
    if (this.starts[TITLE] === UNSET && !this.blank(start, end, false)) this.fill(TITLE, start, end, at);
  }

  /** The eight fields, decoding values with `decoder` and resolving URLs like a document in `encoding`. */
  fields(finalUrl: string, encoding: string, decoder: Decoder): Metadata {
    const text = (slot: number, attr: boolean): string | null => {
      const s = this.starts[slot];
      if (s === UNSET) return null;
      let v = '';
      if (s !== NO_VALUE) {
        const buf = this.bufs[slot];
        // A slot with a start always has the buffer it started in.
        if (buf === null) throw new Error(`candidate slot ${slot} has a value start but no buffer`);
        v = decoder.decode(buf.subarray(s, this.ends[slot]));
      }
      if (v.includes('&')) v = decodeReferences(v, attr);
      if (v.includes('\0')) v = v.replace(/\0/g, '\uFFFD');
      return v;
    };
    const collapsed = (slot: number, attr: boolean): string | null => {
      const v = text(slot, attr);
      return v === null ? null : collapseWhitespace(v) || null;
    };
    let base: string = finalUrl;
    const baseHref = text(BASE, true);
    if (baseHref !== null) {
      const resolved = resolveUrl(baseHref, finalUrl, encoding);
      // Browsers refuse data: and javascript: base URLs and keep the document URL.
      if (resolved !== null && !/^(data|javascript):/i.test(resolved)) base = resolved;
    }
    const url = (slot: number): string | null => {
      const v = text(slot, true);
      if (v === null) return null;
      return resolveUrl(v, base, encoding);
    };
    const og = (i: number, asUrl: boolean): string | null => {
      const slot = this.starts[OG_PROP + i] !== UNSET ? OG_PROP + i : OG_NAME + i;
      return asUrl ? url(slot) : collapsed(slot, true);
    };
    const iconSlot = this.starts[ICON] !== UNSET ? ICON : APPLE;
    return {
      title: collapsed(TITLE, false),
      description: collapsed(DESC, true),
      og_title: og(0, false),
      og_description: og(1, false),
      og_image: og(2, true),
      og_url: og(3, true),
      canonical_url: url(CANONICAL),
      favicon_url: (this.starts[iconSlot] !== UNSET ? url(iconSlot) : null) ?? defaultFavicon(finalUrl),
    };
  }
}
