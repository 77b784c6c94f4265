/**
 * Which encoding a document is read in, from the sources a browser asks in turn (HTML's encoding sniffing
 * algorithm, as Chromium runs it): a BOM, the Content-Type charset, a `<meta>` charset (Blink's pre-scan),
 * an XML declaration at the first byte, else the default. The extractor tells it what it finds while scanning.
 *
 * The default is windows-1252 for HTML: Chromium never guesses UTF-8 for an undeclared http(s) page
 * (docs/design-notes.md#metadata-reading-and-encoding). An XHTML document (application/xhtml+xml) is read as
 * XML is: a `<meta>` charset does not count, and the default is UTF-8.
 */
import { encodingFromMetaAttributes, isAsciiCompatible } from './encoding.js';
import { xmlDeclarationEncoding } from './xml-declaration.js';

/** The encoding sources of one document, and the encoding they settle on. */
export class DocumentEncoding {
  /** The byte-order mark at the start of the document, once the first bytes are seen. */
  bom: { encoding: string; length: number } | null = null;
  /** What a `<meta>` declared. */
  meta: string | null = null;
  /** What an XML declaration names; undefined until it is read. */
  private xml: string | null | undefined = undefined;

  constructor(
    /** The Content-Type charset, resolved (null when absent or unknown). */
    private readonly transport: string | null,
    private readonly xhtml: boolean,
  ) {}

  /** The encoding known before any scanning (BOM, else Content-Type charset), or null. */
  get upFront(): string | null {
    return this.bom?.encoding ?? this.transport;
  }

  /**
   * Blink's meta-charset rule over a `<meta>`'s attributes: remembers and returns the encoding it declares,
   * or null (always for XHTML, whose parser reads no meta charset).
   */
  fromMeta(attrs: ReadonlyArray<readonly [name: string, value: string]>): string | null {
    if (this.xhtml) return null;
    const enc = encodingFromMetaAttributes(attrs);
    if (enc !== null) this.meta = enc;
    return enc;
  }

  /**
   * Reads the XML declaration from the document's bytes so far (`raw`), once: call it when the meta pre-scan
   * is over or the input has ended, by when a declaration's `>` has arrived if there is one.
   */
  readXml(raw: readonly Uint8Array[]): void {
    if (this.xml === undefined) this.xml = this.upFront === null ? xmlDeclarationEncoding(raw) : null;
  }

  /**
   * After the pre-scan: the encoding to scan the document again in when nothing but an XML declaration
   * named one and it is not ASCII-compatible (ISO-2022-JP), else null.
   */
  xmlRescan(): string | null {
    const xml = this.upFront === null && this.meta === null ? this.xml : null;
    return xml != null && !isAsciiCompatible(xml) ? xml : null;
  }

  /** The encoding the document is read in. */
  get final(): string {
    return this.upFront ?? this.meta ?? this.xml ?? (this.xhtml ? 'utf-8' : 'windows-1252');
  }
}
