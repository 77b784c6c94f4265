/**
 * The streaming form of metadata extraction: `MetadataExtractor` takes the bytes in chunks, scanning them
 * where they lie (chunk-seam.ts), and says when every field is settled so a fetcher can stop reading.
 *
 * Decision where the DOM rule needs one:
 * - Early stop: a `<base href>` counts wherever it stands, but once every field is found and the head has
 *   ended (a tag that cannot stand in a head was seen) reading stops, so a `<base>` further down the body is
 *   not seen then. Conforming documents have `<base>` in the head.
 *
 * Encoding: its sources and their order are DocumentEncoding's (document-encoding.ts). While it may still
 * change, the bytes are scanned as they are and the values decoded in the final encoding at the end; an
 * encoding that is not ASCII-compatible (UTF-16, ISO-2022-JP) has the scan start over on the bytes
 * transcoded to UTF-8.
 */
import { Candidates } from './candidates.js';
import { EMPTY, joined, SEAM, SEAM_EXTRA } from './chunk-seam.js';
import { isHtmlContentType, parseContentType } from './content-type.js';
import { DocumentEncoding } from './document-encoding.js';
import { decoderFor, isAsciiCompatible, resolveEncodingLabel, sniffBom } from './encoding.js';
import { DocumentScanner } from './scanner.js';
import type { TagAttrs } from './tag-attrs.js';
import { nonHtmlMetadata } from './text.js';
import type { Metadata } from './types.js';

/** Streaming extractor: `push` chunks (returns true once everything is settled), then `finish`. */
export class MetadataExtractor {
  private readonly html: boolean;
  private readonly encoding: DocumentEncoding;
  /** Set when the document's encoding is not ASCII-compatible: bytes are transcoded to UTF-8 first. */
  private transcoder: TextDecoder | null = null;
  private transcodedFrom: string | null = null;
  private scanner: DocumentScanner | null = null;
  private readonly found = new Candidates();
  /** Every byte so far (by reference) while a meta charset may still force a rescan from the start; then null. */
  private raw: Buffer[] | null = [];
  private rawBytes = 0;
  /** The bytes from the scanner's resume point on (a construct still open), and where they start in the document. */
  private tail: Buffer = EMPTY;
  private tailStart = 0;
  /** Chunks not scanned yet. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** An open construct is rescanned only once tail + pending reach this: keeps rescanning linear in the size. */
  private rescanAt = 0;
  private started = false;
  private done = false;
  private restart = false;
  private readonly stopScan = (): boolean => this.restart || this.isSettled();

  constructor(
    contentType: string | null,
    private readonly finalUrl: string,
  ) {
    this.html = isHtmlContentType(contentType);
    const { essence, charset } = parseContentType(contentType);
    this.encoding = new DocumentEncoding(charset ? resolveEncodingLabel(charset) : null, essence === 'application/xhtml+xml');
  }

  /** True when no further byte can change the result. */
  get settled(): boolean {
    return this.done || (this.scanner !== null && this.isSettled());
  }

  /** Feeds the next chunk (kept by reference: it must not change afterwards); returns true when the caller may stop reading. */
  push(chunk: Uint8Array): boolean {
    if (!this.html) return true;
    if (this.done || chunk.length === 0) return this.done;
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.raw) {
      this.raw.push(bytes);
      this.rawBytes += bytes.length;
    }
    if (!this.started) {
      if (this.rawBytes < 3) return false;
      this.start();
      return this.scan(false);
    }
    this.feed(this.transcoder ? Buffer.from(this.transcoder.decode(bytes, { stream: true }), 'utf8') : bytes);
    if (this.tail.length + this.pendingBytes < this.rescanAt) return false;
    return this.scan(false);
  }

  /** Ends the input (also when reading stopped early or at the byte cap) and returns the fields. */
  finish(): Metadata {
    if (!this.html) return nonHtmlMetadata(this.finalUrl);
    if (!this.started) this.start();
    if (this.transcoder) this.feed(Buffer.from(this.transcoder.decode(), 'utf8'));
    if (!this.done) this.scan(true);
    // The input ended before the pre-scan did: an XML declaration may name an encoding to scan it again in.
    const xml = this.xmlRescan(true);
    if (xml !== null) {
      this.transcodeFrom(xml, 0);
      if (this.transcoder) this.feed(Buffer.from(this.transcoder.decode(), 'utf8'));
      if (!this.done) this.scan(true);
    }
    return this.fields();
  }

  private feed(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private start(): void {
    this.started = true;
    const first = this.rawJoined();
    const bom = sniffBom(first);
    this.encoding.bom = bom;
    const known = this.encoding.upFront;
    if (known !== null && !isAsciiCompatible(known)) {
      this.transcodeFrom(known, bom?.length ?? 0);
      return;
    }
    this.newScanner(known !== null, first.subarray(bom?.length ?? 0), bom?.length ?? 0);
  }

  /** A fresh scan of `bytes`, which start at `offset` in the document. */
  private newScanner(charsetKnown: boolean, bytes: Buffer, offset: number): void {
    this.found.reset();
    this.scanner = new DocumentScanner(this.found, charsetKnown, (attrs) => this.charsetMeta(attrs));
    this.tail = EMPTY;
    this.tailStart = offset;
    this.pending = [];
    this.pendingBytes = 0;
    this.rescanAt = 0;
    this.feed(bytes);
  }

  /** The raw bytes so far as one buffer; they are kept until no meta charset can restart the scan. */
  private rawJoined(): Buffer {
    const raw = this.raw;
    if (raw === null) throw new Error('MetadataExtractor: the raw bytes were needed after they were released');
    return joined(raw.length > 0 ? raw : [EMPTY]);
  }

  /** Restarts on UTF-8 transcoded bytes (UTF-16, ISO-2022-JP); "replacement" decodes to nothing useful. */
  private transcodeFrom(encoding: string, skip: number): void {
    const raw = this.rawJoined().subarray(skip);
    this.raw = null;
    this.transcodedFrom = encoding;
    if (encoding === 'replacement') {
      this.done = true;
      return;
    }
    this.transcoder = new TextDecoder(encoding, { ignoreBOM: true });
    this.newScanner(true, Buffer.from(this.transcoder.decode(raw, { stream: true }), 'utf8'), 0);
  }

  /**
   * Scans what has arrived, chunk by chunk where the chunks lie. A construct left open at the end of a chunk
   * (the tail) is finished on a seam: the tail plus the next few KiB, scanned only until the construct
   * closes; the rest of the seam goes back in front of the chunks. A long open construct (a big inline
   * script) is instead rescanned on one copy of everything, and only once the bytes after it have doubled.
   */
  private scan(final: boolean): boolean {
    if (!this.scanner || this.done) return this.done;
    for (;;) {
      if (this.tail.length === 0) {
        const chunk = this.pending.shift();
        if (chunk === undefined) break;
        this.pendingBytes -= chunk.length;
        this.run(chunk, Infinity, final && this.pending.length === 0);
      } else if (this.pendingBytes === 0) {
        if (final) this.run(this.tail, Infinity, true);
        break;
      } else if (this.tail.length < SEAM) {
        const tailLength = this.tail.length;
        const taken = this.takePending(SEAM_EXTRA);
        const seam = Buffer.concat([this.tail, ...taken]);
        this.run(seam, tailLength, final && this.pendingBytes === 0);
        const scanned = seam.length - this.tail.length - tailLength;
        if (scanned >= 0) {
          // Closed: the scan goes on in the chunks themselves, where the seam's copy of them ends.
          this.untake(taken, scanned);
          this.tail = EMPTY;
        }
      } else {
        const win = Buffer.concat([this.tail, ...this.pending]);
        this.pending = [];
        this.pendingBytes = 0;
        this.run(win, Infinity, final);
      }
      const xml = this.restart ? null : this.xmlRescan(false);
      if (this.restart || xml !== null) {
        this.restart = false;
        const declared = this.encoding.meta ?? xml;
        if (declared === null) throw new Error('MetadataExtractor: a rescan was requested without a declared encoding');
        this.transcodeFrom(declared, this.encoding.bom?.length ?? 0);
        continue;
      }
      if (this.isSettled()) {
        this.done = true;
        break;
      }
    }
    this.rescanAt = 2 * this.tail.length;
    // No meta charset can restart the scan any more: once the XML declaration is read, the raw bytes need not be kept.
    if (this.raw && this.currentScanner().charsetDone) {
      this.encoding.readXml(this.raw);
      this.raw = null;
    }
    return this.done;
  }

  /** Removes up to `n` bytes from the front of the pending chunks. */
  private takePending(n: number): Buffer[] {
    const out: Buffer[] = [];
    while (n > 0) {
      const chunk = this.pending[0];
      if (chunk === undefined) break;
      const part = chunk.length > n ? chunk.subarray(0, n) : chunk;
      if (part === chunk) this.pending.shift();
      else this.pending[0] = chunk.subarray(n);
      out.push(part);
      n -= part.length;
      this.pendingBytes -= part.length;
    }
    return out;
  }

  /** Puts back what `takePending` took, but the first `skip` bytes; adjacent views of one chunk become one view again. */
  private untake(taken: Buffer[], skip: number): void {
    const rest: Buffer[] = [];
    for (const part of taken) {
      if (skip >= part.length) skip -= part.length;
      else {
        rest.push(part.subarray(skip));
        skip = 0;
      }
    }
    for (const part of rest.reverse()) {
      const next = this.pending[0];
      if (next && next.buffer === part.buffer && part.byteOffset + part.length === next.byteOffset) {
        this.pending[0] = Buffer.from(part.buffer, part.byteOffset, part.length + next.length);
      } else this.pending.unshift(part);
      this.pendingBytes += part.length;
    }
  }

  /** Scans `win`, which starts at `tailStart` in the document; the unscanned rest becomes the tail. */
  private run(win: Buffer, stopAt: number, final: boolean): void {
    const sc = this.currentScanner();
    const start = this.tailStart;
    sc.buf = win;
    sc.len = win.length;
    sc.offset = start;
    sc.pos = 0;
    sc.stopAt = stopAt;
    this.found.buf = win;
    sc.run(final, this.stopScan);
    this.tail = win.subarray(sc.pos);
    this.tailStart = start + sc.pos;
  }

  /** The scanner; there is one from `start()` on, and scanning before it is a bug. */
  private currentScanner(): DocumentScanner {
    const sc = this.scanner;
    if (sc === null) throw new Error('MetadataExtractor: no scanner before start()');
    return sc;
  }

  private isSettled(): boolean {
    const sc = this.currentScanner();
    if (!sc.charsetDone) return false;
    // After a <frameset> took over, no element counts any more.
    const frameset = sc.frameset;
    if (frameset.taken) return true;
    if (this.found.missing > 0 || (!this.found.hasBase && sc.inHead)) return false;
    // A later <frameset> would take away what was found in the body.
    return !(frameset.ok && frameset.bodyAt >= 0 && this.found.foundFrom(frameset.bodyAt));
  }

  /** Blink's meta-charset rule over this `<meta>`'s attributes; remembers a declared encoding. */
  private charsetMeta(attrs: TagAttrs): boolean {
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < attrs.count; i++) pairs.push([this.found.attrName(attrs, i), this.found.attrText(attrs, i)]);
    const enc = this.encoding.fromMeta(pairs);
    if (enc === null) return false;
    // Bytes were read as ASCII-compatible so far; a declared ISO-2022-JP (or "replacement") needs a rescan.
    if (!isAsciiCompatible(enc)) this.restart = true;
    return true;
  }

  /**
   * At the end of the pre-scan (or of the input): the encoding an XML declaration makes the scan start over
   * in (one that is not ASCII-compatible, when nothing else declared one), else null.
   */
  private xmlRescan(inputEnded: boolean): string | null {
    if (this.transcodedFrom || !(inputEnded || this.currentScanner().charsetDone)) return null;
    if (this.raw) this.encoding.readXml(this.raw);
    return this.encoding.xmlRescan();
  }

  private fields(): Metadata {
    const encoding = this.transcodedFrom ?? this.encoding.final;
    const decoder = decoderFor(this.transcodedFrom || encoding === 'replacement' ? 'utf-8' : encoding);
    return this.found.fields(this.finalUrl, encoding, decoder);
  }
}
