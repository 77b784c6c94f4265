/**
 * Metadata extraction, pure: bytes + Content-Type + final URL in, the eight fields out (DESIGN.md,
 * "Metadata rules"). `MetadataExtractor` takes the bytes in chunks and says when every field is settled
 * so a fetcher can stop reading; `extractMetadata` is the one-shot form.
 *
 * Decisions where the DOM rule needs one:
 * - `og_*`: a `<meta property=og:…>` anywhere wins over a `<meta name=og:…>`; `name` is only the fallback
 *   when no element has the property.
 * - A URL field whose first non-empty value does not parse as a URL is null (no later element is tried).
 * - Early stop: a `<base href>` counts wherever it stands, but once every field is found and the head has
 *   ended (a tag that cannot stand in a head was seen) reading stops, so a `<base>` further down the body is
 *   not seen then. Conforming documents have `<base>` in the head.
 *
 * Encoding: BOM, then the Content-Type charset, then a `<meta>` charset under Blink's pre-scan rules
 * (anywhere while the head lasts, anywhere in the first 1024 bytes), else windows-1252. DESIGN.md lists
 * "UTF-8 if the bytes are valid UTF-8" before windows-1252, but the browser it names as the reference does
 * not do that for http(s) pages: Chromium only lets its detector pick UTF-8 for file: URLs, so an
 * undeclared UTF-8 page shows as windows-1252 mojibake in the DOM (4 corpus pages). We follow the browser.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities';
import {
  decoderFor,
  encodingFromMetaAttributes,
  isAsciiCompatible,
  isHtmlContentType,
  parseContentType,
  resolveEncodingLabel,
  sniffBom,
} from './encoding.js';
import { isWs, type TagAttrs } from './html-scan.js';
import { DocumentScanner, type ScanSink } from './scanner.js';
import { collapseWhitespace, defaultFavicon, nonHtmlMetadata } from './text.js';
import type { Metadata } from './types.js';
import { resolveUrl } from './url-resolve.js';

// Slots of the candidate table: each holds the byte range of the first non-empty value found.
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
const REQUIRED = [TITLE, DESC, OG_PROP, OG_PROP + 1, OG_PROP + 2, OG_PROP + 3, CANONICAL, ICON];
const UNSET = -2;
const NO_VALUE = -1;

export { nonHtmlMetadata } from './text.js';

/** Streaming extractor: `push` chunks (returns true once everything is settled), then `finish`. */
export class MetadataExtractor implements ScanSink {
  private readonly html: boolean;
  private readonly contentEncoding: string | null;
  private bom: { encoding: string; length: number } | null = null;
  private metaEncoding: string | null = null;
  /** Set when the document's encoding is not ASCII-compatible: bytes are transcoded to UTF-8 first. */
  private transcoder: TextDecoder | null = null;
  private transcodedFrom: string | null = null;
  private scanner: DocumentScanner | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private len = 0;
  private started = false;
  private done = false;
  private readonly slots = new Int32Array(SLOTS * 2).fill(UNSET);
  private missing = REQUIRED.length;
  private restart = false;
  private pendingFrom = -1;
  private pendingLen = 0;

  constructor(
    contentType: string | null,
    private readonly finalUrl: string,
    opts: { sizeHint?: number } = {},
  ) {
    this.html = isHtmlContentType(contentType);
    // Knowing the body length (Content-Length) saves the buffer's regrowth copies.
    if (opts.sizeHint && opts.sizeHint > 0) this.buf = Buffer.allocUnsafe(opts.sizeHint);
    const { charset } = parseContentType(contentType);
    this.contentEncoding = charset ? resolveEncodingLabel(charset) : null;
  }

  /** True when no further byte can change the result. */
  get settled(): boolean {
    return this.done || (this.scanner !== null && this.isSettled());
  }

  /** Feeds the next chunk; returns true when the caller may stop reading. */
  push(chunk: Uint8Array): boolean {
    if (!this.html) return true;
    if (this.done || chunk.length === 0) return this.done;
    if (this.transcoder) this.append(Buffer.from(this.transcoder.decode(chunk, { stream: true }), 'utf8'));
    else this.append(chunk);
    if (!this.started) {
      if (this.len < 3) return false;
      this.start();
    }
    return this.scan(false);
  }

  /** Ends the input (also when reading stopped early or at the byte cap) and returns the fields. */
  finish(): Metadata {
    if (!this.html) return nonHtmlMetadata(this.finalUrl);
    if (!this.started) this.start();
    if (this.transcoder) this.append(Buffer.from(this.transcoder.decode(), 'utf8'));
    if (!this.done) this.scan(true);
    return this.fields();
  }

  private append(bytes: Uint8Array): void {
    const need = this.len + bytes.length;
    if (this.len === 0 && this.buf.length < bytes.length) {
      // Adopt the first chunk without copying; it is only read, and a later append reallocates.
      this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      this.len = bytes.length;
      return;
    }
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2, 65_536));
      this.buf.copy(grown, 0, 0, this.len);
      this.buf = grown;
    }
    this.buf.set(bytes, this.len);
    this.len = need;
  }

  private start(): void {
    this.started = true;
    this.bom = sniffBom(this.buf.subarray(0, this.len));
    const known = this.bom?.encoding ?? this.contentEncoding;
    if (known !== null && !isAsciiCompatible(known)) {
      this.transcodeFrom(known, this.bom?.length ?? 0);
      return;
    }
    this.newScanner(known !== null, this.bom?.length ?? 0);
  }

  private newScanner(charsetKnown: boolean, from: number): void {
    this.slots.fill(UNSET);
    this.missing = REQUIRED.length;
    this.scanner = new DocumentScanner(this, charsetKnown, (attrs) => this.charsetMeta(attrs));
    this.scanner.pos = from;
  }

  /** Restarts on UTF-8 transcoded bytes (UTF-16, ISO-2022-JP); "replacement" decodes to nothing useful. */
  private transcodeFrom(encoding: string, skip: number): void {
    const raw = this.buf.subarray(skip, this.len);
    this.transcodedFrom = encoding;
    this.buf = Buffer.alloc(0);
    this.len = 0;
    if (encoding === 'replacement') {
      this.done = true;
      return;
    }
    this.transcoder = new TextDecoder(encoding, { ignoreBOM: true });
    this.append(Buffer.from(this.transcoder.decode(raw, { stream: true }), 'utf8'));
    this.newScanner(true, 0);
  }

  private scan(final: boolean): boolean {
    const sc = this.scanner;
    if (!sc || this.done) return this.done;
    // A construct still open at the end of the data (a long inline script, say) is rescanned from its start;
    // waiting until its pending part has doubled keeps the total rescanning linear in the document size.
    if (!final && sc.pos === this.pendingFrom && this.len - sc.pos < 2 * (this.pendingLen - sc.pos)) return false;
    // A view of exactly the bytes read: Buffer#indexOf would otherwise search the unused capacity too.
    sc.buf = this.buf.subarray(0, this.len);
    sc.len = this.len;
    sc.run(final, () => this.restart || this.isSettled());
    this.pendingFrom = sc.pos;
    this.pendingLen = this.len;
    if (this.restart) {
      this.restart = false;
      this.transcodeFrom(this.metaEncoding!, this.bom?.length ?? 0);
      return this.scan(final);
    }
    if (this.isSettled()) this.done = true;
    return this.done;
  }

  private isSettled(): boolean {
    const sc = this.scanner!;
    return this.missing === 0 && sc.charsetDone && (this.slots[BASE * 2] !== UNSET || !sc.inHead);
  }

  /** Blink's meta-charset rule over this `<meta>`'s attributes; remembers a declared encoding. */
  private charsetMeta(attrs: TagAttrs): boolean {
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < attrs.count; i++) pairs.push([this.attrName(attrs, i), this.attrText(attrs, i)]);
    const enc = encodingFromMetaAttributes(pairs);
    if (enc === null) return false;
    this.metaEncoding = enc;
    // Bytes were read as ASCII-compatible so far; a declared ISO-2022-JP (or "replacement") needs a rescan.
    if (!isAsciiCompatible(enc)) this.restart = true;
    return true;
  }

  private attrName(attrs: TagAttrs, i: number): string {
    return this.buf.toString('latin1', attrs.pos[i * 4], attrs.pos[i * 4 + 1]).toLowerCase();
  }

  /** Attribute value for ASCII comparisons (latin1 + entities; non-ASCII bytes cannot match ASCII anyway). */
  private attrText(attrs: TagAttrs, i: number): string {
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

  private fill(slot: number, s: number, e: number): void {
    if (this.slots[slot * 2] !== UNSET) return;
    this.slots[slot * 2] = s;
    this.slots[slot * 2 + 1] = e;
    if (REQUIRED.includes(slot)) this.missing--;
  }

  /** ScanSink: a `<meta>` element. */
  meta(attrs: TagAttrs, inTemplate: boolean): void {
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
    if (name === 'description') this.fill(DESC, s, e);
    for (let i = 0; i < 4; i++) {
      if (prop === OG_TAGS[i]) this.fill(OG_PROP + i, s, e);
      if (name === OG_TAGS[i]) this.fill(OG_NAME + i, s, e);
    }
  }

  /** ScanSink: a `<link>` element. */
  link(attrs: TagAttrs): void {
    const b = this.buf;
    const r = attrs.find(b, 'rel');
    const h = attrs.find(b, 'href');
    if (r < 0 || h < 0) return;
    const s = attrs.pos[h * 4 + 2];
    const e = attrs.pos[h * 4 + 3];
    if (s < 0 || this.blank(s, e, true)) return;
    const tokens = this.attrText(attrs, r).toLowerCase().split(/[\t\n\f\r ]+/);
    if (tokens.includes('canonical')) this.fill(CANONICAL, s, e);
    if (tokens.includes('icon')) this.fill(ICON, s, e);
    if (tokens.includes('apple-touch-icon') || tokens.includes('apple-touch-icon-precomposed')) this.fill(APPLE, s, e);
  }

  /** ScanSink: a `<base>` element; the first one with an `href` (even empty) sets the base URL. */
  base(attrs: TagAttrs): void {
    const h = attrs.find(this.buf, 'href');
    if (h < 0 || this.slots[BASE * 2] !== UNSET) return;
    const s = attrs.pos[h * 4 + 2];
    this.fill(BASE, s < 0 ? NO_VALUE : s, s < 0 ? NO_VALUE : attrs.pos[h * 4 + 3]);
  }

  /** ScanSink: the text of an HTML `<title>`. */
  title(start: number, end: number): void {
    if (this.slots[TITLE * 2] === UNSET && !this.blank(start, end, false)) this.fill(TITLE, start, end);
  }

  private documentEncoding(): string {
    if (this.transcodedFrom) return this.transcodedFrom;
    const declared = this.bom?.encoding ?? this.contentEncoding ?? this.metaEncoding;
    if (declared) return declared;
    // Chromium never sniffs UTF-8 for http(s) documents (only for file: URLs); an undeclared document is
    // windows-1252, the en-US default, even when its bytes are valid UTF-8. See the module comment.
    return 'windows-1252';
  }

  private fields(): Metadata {
    const encoding = this.documentEncoding();
    const decoder = decoderFor(this.transcodedFrom || encoding === 'replacement' ? 'utf-8' : encoding);
    const text = (slot: number, attr: boolean): string | null => {
      const s = this.slots[slot * 2];
      if (s === UNSET) return null;
      let v = s === NO_VALUE ? '' : decoder.decode(this.buf.subarray(s, this.slots[slot * 2 + 1]));
      if (v.includes('&')) v = attr ? decodeHTMLAttribute(v) : decodeHTML(v);
      if (v.includes('\0')) v = v.replace(/\0/g, '\uFFFD');
      return v;
    };
    const collapsed = (slot: number, attr: boolean): string | null => {
      const v = text(slot, attr);
      return v === null ? null : collapseWhitespace(v) || null;
    };
    let base: string = this.finalUrl;
    const baseHref = text(BASE, true);
    if (baseHref !== null) {
      const resolved = resolveUrl(baseHref, this.finalUrl, encoding);
      // Browsers refuse data: and javascript: base URLs and keep the document URL.
      if (resolved !== null && !/^(data|javascript):/i.test(resolved)) base = resolved;
    }
    const url = (slot: number): string | null => {
      const v = text(slot, true);
      if (v === null) return null;
      return resolveUrl(v, base, encoding);
    };
    const og = (i: number, asUrl: boolean): string | null => {
      const slot = this.slots[(OG_PROP + i) * 2] !== UNSET ? OG_PROP + i : OG_NAME + i;
      return asUrl ? url(slot) : collapsed(slot, true);
    };
    const iconSlot = this.slots[ICON * 2] !== UNSET ? ICON : APPLE;
    return {
      title: collapsed(TITLE, false),
      description: collapsed(DESC, true),
      og_title: og(0, false),
      og_description: og(1, false),
      og_image: og(2, true),
      og_url: og(3, true),
      canonical_url: url(CANONICAL),
      favicon_url: (this.slots[iconSlot * 2] !== UNSET ? url(iconSlot) : null) ?? defaultFavicon(this.finalUrl),
    };
  }
}

/** Extracts the eight fields from a whole response body. Pure. */
export function extractMetadata(bytes: Uint8Array, contentType: string | null, finalUrl: string): Metadata {
  const extractor = new MetadataExtractor(contentType, finalUrl);
  extractor.push(bytes);
  return extractor.finish();
}
