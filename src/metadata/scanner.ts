/**
 * The incremental document scanner: walks the bytes once, tag by tag, tracking just enough tree state
 * (foreign SVG/MathML content and its integration points, `<template>` contents, raw-text elements) to
 * know which `<title>`, `<meta>`, `<link>` and `<base>` elements a browser would put in the document.
 * Each relevant element is handed to a `ScanSink`. It also runs Blink's meta-charset pre-scan rules, and
 * follows what decides whether a `<frameset>` takes the document over (`FramesetWatch`).
 */
import { decodeHTMLAttribute } from 'entities';
import { ForeignContent } from './foreign-content.js';
import { BLANK, FramesetWatch, textKind, textUndecided } from './frameset.js';
import { EOF_IN_TAG, eqLower, findCommentEnd, findEndTag, isAlpha, lowerName, NEED_MORE, skipToGt } from './html-scan.js';
import { RawTextSearch } from './raw-text.js';
import { skipAttributes, TagAttrs } from './tag-attrs.js';
import { HEAD_TAGS, isSpecial, RAWTEXT } from './tag-names.js';

/**
 * Receives the elements that count; `attrs` positions refer to the scanner's byte buffer, `at` is where the
 * element's start tag begins in the document.
 */
export interface ScanSink {
  meta(attrs: TagAttrs, inTemplate: boolean, at: number): void;
  link(attrs: TagAttrs, at: number): void;
  base(attrs: TagAttrs, at: number): void;
  /** Text bytes [start, end) of an HTML `<title>` outside templates. */
  title(start: number, end: number, at: number): void;
  /** A `<frameset>` replaced the body that began at `at`: the elements found from there on are gone. */
  dropFrom(at: number): void;
}

/** What the scanner reports to once a `<frameset>` took over: nothing counts any more. */
const NO_SINK: ScanSink = { meta() {}, link() {}, base() {}, title() {}, dropFrom() {} };

const LT = 0x3c;
const SLASH = 0x2f;
const BANG = 0x21;
const QMARK = 0x3f;
/** startTag: the input ends inside a raw-text element whose start tag is complete (see `rawText`). */
const RAW_OPEN = -3;
const DASH = 0x2d;

/** Blink stops looking for a meta charset outside the head only after this many bytes. */
const CHARSET_SCAN_MIN = 1024;

/**
 * Scans a document window by window: the caller sets `buf`, `len`, `offset` and `pos`, calls `run`, and hands
 * the bytes from `pos` on (an incomplete construct) back at the start of the next window; `final` at the end.
 */
export class DocumentScanner {
  buf: Buffer = Buffer.alloc(0);
  len = 0;
  /** Where `buf` starts in the document (the bytes before it are scanned already). */
  offset = 0;
  /** Resume position in `buf`: the start of the first construct not yet complete. */
  pos = 0;
  /** `run` stops before the first construct that starts at or after this position of `buf`. */
  stopAt = Infinity;
  /** A raw-text element (script, style …) left open at the end of a window: `pos` is then inside its content. */
  private readonly raw = new RawTextSearch();
  /** True once the charset pre-scan is over (found one, or left the head after 1024 bytes). */
  charsetDone: boolean;
  /** Blink's "in head section": false after the first tag that cannot stand in a head. */
  inHead = true;
  /** Everything after `<plaintext>` is text. */
  private plaintext = false;
  private templateDepth = 0;
  /** Whether a `<frameset>` could still take over, and where the body began. */
  readonly frameset = new FramesetWatch();
  private readonly foreign = new ForeignContent();
  private readonly attrs = new TagAttrs();

  constructor(
    private sink: ScanSink,
    charsetKnown: boolean,
    private readonly onCharsetMeta: (attrs: TagAttrs) => boolean,
  ) {
    this.charsetDone = charsetKnown;
  }

  /** Scans from `pos` as far as the available bytes allow; `stop` is polled after each tag. */
  run(final: boolean, stop: () => boolean): void {
    const b = this.buf;
    const len = this.len;
    let p = this.pos;
    if (this.raw.open) {
      const close = this.raw.resume(b, p, len, final);
      if (close === NEED_MORE) {
        this.pos = this.raw.resumeAt(len, p);
        return;
      }
      p = close;
    }
    while (!this.plaintext) {
      // Tags often follow each other directly: no search needed then.
      const j = b[p] === LT ? p : b.indexOf(LT, p);
      if (j < 0 || j >= len) {
        if (this.frameset.open && p < len) {
          // A character reference at the end of the window may go on in the next one.
          if (!final && textUndecided(b, p, len)) break;
          this.text(p, len, true);
        }
        p = len;
        break;
      }
      if (j > p && this.frameset.open) this.text(p, j, true);
      if (j >= this.stopAt) {
        p = j;
        break;
      }
      if (j + 1 >= len) {
        p = final ? len : j;
        break;
      }
      if (!this.charsetDone && !this.inHead && this.offset + j >= CHARSET_SCAN_MIN) this.charsetDone = true;
      const c = b[j + 1];
      let next: number;
      if (isAlpha(c)) next = this.startTag(j, final);
      else if (c === SLASH) next = this.endTag(j, final);
      else if (c === BANG) next = this.markup(j, final);
      else if (c === QMARK) next = skipToGt(b, j + 2, len, final);
      else {
        // A "<" that starts nothing is text.
        if (this.frameset.open) this.text(j, j + 1, true);
        p = j + 1;
        continue;
      }
      if (next === NEED_MORE) {
        p = j;
        break;
      }
      if (next === RAW_OPEN) {
        p = this.raw.resumeAt(len);
        break;
      }
      p = next;
      if (stop()) break;
    }
    this.pos = this.plaintext ? len : p;
  }

  /** Text [s, e) outside tags, for the frameset watch; `references` is false in a CDATA section. */
  private text(s: number, e: number, references: boolean): void {
    const kind = textKind(this.buf, s, e, references);
    if (kind !== BLANK) this.frameset.text(kind, this.offset + s, this.templateDepth > 0);
  }

  /** A raw-text element's content from `from`: the index of its end tag, or RAW_OPEN when the window ends inside it. */
  private rawText(name: string, from: number, final: boolean): number {
    const close = this.raw.start(name, this.buf, from, this.len, final);
    return close === NEED_MORE ? RAW_OPEN : close;
  }

  private startTag(j: number, final: boolean): number {
    const b = this.buf;
    const len = this.len;
    let k = j + 1;
    while (k < len) {
      const c = b[k];
      if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d || c === SLASH || c === 0x3e) break;
      k++;
    }
    if (k >= len) return final ? len : NEED_MORE;
    const ns = j + 1;
    const ne = k;
    // Past the head and outside SVG/MathML only a few names matter; the others need just their end.
    if (!this.inHead && this.foreign.depth === 0 && !this.frameset.open && !isSpecial(b, ns, ne)) {
      const skipped = skipAttributes(b, k, len, final);
      return skipped === EOF_IN_TAG ? len : skipped;
    }
    const attrs = this.attrs;
    const end = attrs.scan(b, k, len, final);
    if (end === NEED_MORE) return NEED_MORE;
    if (end === EOF_IN_TAG) return len;
    const n = ne - ns;

    // Names are only materialised where they matter: in the head pre-scan, inside SVG/MathML and while a
    // frameset could take over.
    let headName = '';
    if (this.inHead) {
      headName = n <= 8 ? lowerName(b, ns, ne) : '';
      if (!HEAD_TAGS.has(headName) && headName !== 'html' && headName !== 'head') this.inHead = false;
    }
    if (this.foreign.inside() && this.foreign.startTag(lowerName(b, ns, ne), b, attrs)) return end;

    // HTML content.
    const at = this.offset + j;
    if (this.frameset.open && this.framesetTag(headName || lowerName(b, ns, ne), at)) return end;
    const c0 = b[ns] | 0x20;
    switch (n) {
      case 3:
        if (eqLower(b, ns, ne, 'svg')) {
          this.foreign.open('svg', attrs.selfClosing);
          return end;
        }
        if (eqLower(b, ns, ne, 'xmp')) return this.rawText('xmp', end, final);
        return end;
      case 4:
        if (c0 === 0x6d /* m */) {
          if (eqLower(b, ns, ne, 'meta')) {
            if (!this.charsetDone && this.onCharsetMeta(attrs)) this.charsetDone = true;
            this.sink.meta(attrs, this.templateDepth > 0, at);
          } else if (eqLower(b, ns, ne, 'math')) this.foreign.open('math', attrs.selfClosing);
        } else if (this.templateDepth === 0) {
          if (c0 === 0x6c /* l */ && eqLower(b, ns, ne, 'link')) this.sink.link(attrs, at);
          else if (c0 === 0x62 /* b */ && eqLower(b, ns, ne, 'base')) this.sink.base(attrs, at);
        }
        return end;
      case 5:
        if (c0 === 0x74 /* t */ && eqLower(b, ns, ne, 'title')) {
          const close = findEndTag(b, end, len, 'title', final);
          if (close === NEED_MORE) return NEED_MORE;
          if (this.templateDepth === 0) this.sink.title(end, close, at);
          return close;
        }
        if (c0 === 0x73 /* s */ && eqLower(b, ns, ne, 'style')) return this.rawText('style', end, final);
        return end;
      case 6:
        if (c0 === 0x73 && eqLower(b, ns, ne, 'script')) return this.rawText('script', end, final);
        if (c0 === 0x69 /* i */ && eqLower(b, ns, ne, 'iframe')) return this.rawText('iframe', end, final);
        return end;
      case 7:
      case 8:
      case 9: {
        const name = lowerName(b, ns, ne);
        if (RAWTEXT.has(name) || name === 'textarea') return this.rawText(name, end, final);
        if (name === 'template') this.templateDepth++;
        else if (name === 'plaintext') this.plaintext = true;
        return end;
      }
      default:
        return end;
    }
  }

  /**
   * Tells the frameset watch about an HTML start tag; true when it is a `<frameset>` (no element for the
   * extractor, whether it took the document over or was ignored). A frameset that takes over removes the
   * body found so far, and nothing after it counts.
   */
  private framesetTag(name: string, at: number): boolean {
    const watch = this.frameset;
    if (!watch.startTag(name, at, this.templateDepth > 0, name === 'input' && this.isHiddenInput())) return false;
    if (watch.taken) {
      if (watch.bodyAt >= 0) this.sink.dropFrom(watch.bodyAt);
      this.sink = NO_SINK;
    }
    return true;
  }

  /** Whether the current tag has `type=hidden` (entities decoded, case-insensitive). */
  private isHiddenInput(): boolean {
    const t = this.attrs.find(this.buf, 'type');
    const p = this.attrs.pos;
    if (t < 0 || p[t * 4 + 2] < 0) return false;
    const raw = this.buf.toString('latin1', p[t * 4 + 2], p[t * 4 + 3]);
    return (raw.includes('&') ? decodeHTMLAttribute(raw) : raw).toLowerCase() === 'hidden';
  }

  private endTag(j: number, final: boolean): number {
    const b = this.buf;
    const len = this.len;
    const k = j + 2;
    if (k >= len) return final ? len : NEED_MORE;
    if (b[k] === 0x3e) return k + 1;
    if (!isAlpha(b[k])) return skipToGt(b, k, len, final);
    let e = k;
    while (e < len) {
      const c = b[e];
      if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d || c === SLASH || c === 0x3e) break;
      e++;
    }
    if (e >= len) return final ? len : NEED_MORE;
    const end = b[e] === 0x3e ? e + 1 : this.attrs.scan(b, e, len, final);
    if (end === NEED_MORE) return NEED_MORE;
    if (end === EOF_IN_TAG) return len;
    if (this.inHead && (e - k > 8 || !HEAD_TAGS.has(lowerName(b, k, e)))) this.inHead = false;
    // The end tags the frameset watch acts on: </br> (also in SVG/MathML, where it breaks out), </head>,
    // </body> and </html>.
    if (this.frameset.open && (e - k === 2 || (e - k === 4 && !this.foreign.inside()))) {
      this.frameset.endTag(lowerName(b, k, e), this.offset + j, this.templateDepth > 0);
    }
    if (this.foreign.depth > 0) this.foreign.endTag(lowerName(b, k, e));
    else if (this.templateDepth > 0 && eqLower(b, k, e, 'template')) this.templateDepth--;
    return end;
  }

  private markup(j: number, final: boolean): number {
    const b = this.buf;
    const len = this.len;
    const k = j + 2;
    // Enough bytes to tell "--", "doctype" and "[CDATA[" apart.
    if (len - k < 7 && !final) return NEED_MORE;
    if (b[k] === DASH && b[k + 1] === DASH) return findCommentEnd(b, k + 2, len, final);
    if (this.foreign.inside() && eqLower(b, k, k + 7, '[cdata[')) {
      const close = b.indexOf(']]>', k + 7);
      if (close < 0 || close >= len) {
        if (!final) return NEED_MORE;
        if (this.frameset.open) this.text(k + 7, len, false);
        return len;
      }
      if (this.frameset.open) this.text(k + 7, close, false);
      return close + 3;
    }
    // DOCTYPE and bogus comments both end at the next '>'.
    return skipToGt(b, k, len, final);
  }
}
