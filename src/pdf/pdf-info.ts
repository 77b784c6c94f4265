/**
 * Gives a printed PDF the properties its document states (docs/api.md#post-v1render, "What the PDF says
 * about itself"): a new Info dictionary and, when the language differs from what Chromium wrote, a
 * new catalog, appended as an incremental update. Chromium's bytes stay where they are, but the entries
 * of its own Info dictionary (its user agent and version, `about:blank` for a title), a dead object once
 * the update replaces it, are overwritten with spaces: the offsets of every object stay valid. The cost is
 * reading the file's tail and writing a few hundred bytes, whatever the page count.
 */

/** The document-level properties of a PDF; an absent value is left out rather than guessed. */
export interface PdfProperties {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  /** The document's language (BCP 47); absent removes a /Lang that only reflects the browser's locale. */
  lang?: string;
  creator: string;
  producer: string;
  /** Creation and modification date. */
  date: Date;
}

/** How far from the end `startxref` is looked for (the spec asks readers to look in the last 1024 bytes). */
const TAIL_BYTES = 1024;
const XREF_ENTRY_BYTES = 20;

/** A PDF text string: literal when printable ASCII (with `( ) \` escaped), else UTF-16BE with a BOM, as hex. */
export function pdfTextString(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return `(${value.replace(/[()\\]/g, '\\$&')})`;
  return `<${Buffer.from(`\ufeff${value}`, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
}

/** A PDF date string in UTC, e.g. `D:20261125143514+00'00'`. */
export function pdfDate(date: Date): string {
  const digits = date.toISOString().replace(/\D/g, '').slice(0, 14);
  return `(D:${digits}+00'00')`;
}

/** Where a PDF's last cross-reference section is, and what its trailer says. */
export interface Trailer {
  /** Byte offset of the cross-reference section (table or stream) the file ends with. */
  xrefOffset: number;
  /** The trailer dictionary's text (classic table) or the xref stream's dictionary. */
  dict: string;
  classic: boolean;
}

/** The trailer of a PDF's last cross-reference section; undefined when the file does not end like a PDF. */
export function readTrailer(pdf: Buffer): Trailer | undefined {
  const tailStart = Math.max(0, pdf.length - TAIL_BYTES);
  const at = pdf.lastIndexOf('startxref', undefined, 'latin1');
  if (at < tailStart) return undefined;
  const match = /^startxref\s+(\d+)/.exec(pdf.toString('latin1', at, Math.min(pdf.length, at + 40)));
  if (!match) return undefined;
  const xrefOffset = Number(match[1]);
  if (xrefOffset >= at) return undefined;
  if (pdf.toString('latin1', xrefOffset, xrefOffset + 4) === 'xref') {
    const trailer = pdf.indexOf('trailer', xrefOffset, 'latin1');
    if (trailer < 0 || trailer > at) return undefined;
    return { xrefOffset, dict: pdf.toString('latin1', trailer + 7, at), classic: true };
  }
  // A cross-reference stream: its dictionary holds what a trailer would.
  const head = pdf.toString('latin1', xrefOffset, Math.min(at, xrefOffset + 4096));
  const stream = head.indexOf('stream');
  if (!/^\d+\s+\d+\s+obj/.test(head) || stream < 0 || !/\/Type\s*\/XRef/.test(head.slice(0, stream))) return undefined;
  return { xrefOffset, dict: head.slice(0, stream), classic: false };
}

/** Where object `num` starts, from the classic table the file ends with (fixed 20-byte entries). */
export function offsetInTable(pdf: Buffer, xrefOffset: number, num: number): number | undefined {
  let pos = xrefOffset + 4;
  const header = /^\s*(\d+)\s+(\d+)[ \t]*\r?\n/;
  for (;;) {
    const match = header.exec(pdf.toString('latin1', pos, pos + 40));
    if (!match) return undefined;
    const [first, count] = [Number(match[1]), Number(match[2])];
    pos += match[0].length;
    if (num >= first && num < first + count) {
      const entry = /^(\d{10}) (\d{5}) n/.exec(
        pdf.toString('latin1', pos + (num - first) * XREF_ENTRY_BYTES, pos + (num - first + 1) * XREF_ENTRY_BYTES),
      );
      return entry ? Number(entry[1]) : undefined;
    }
    pos += count * XREF_ENTRY_BYTES;
  }
}

interface Catalog {
  num: number;
  gen: number;
  /** The dictionary's contents between its outer `<<` and `>>`. */
  body: string;
}

/**
 * The document catalog as a top-level object. Undefined when it cannot be read as one (inside an object
 * stream, say): the catalog is then left as it is.
 */
function readCatalog(pdf: Buffer, trailer: Trailer, num: number, gen: number): Catalog | undefined {
  const marker = `${num} ${gen} obj`;
  let start = trailer.classic ? offsetInTable(pdf, trailer.xrefOffset, num) : undefined;
  if (start === undefined || pdf.toString('latin1', start, start + marker.length) !== marker) {
    const found = pdf.lastIndexOf(`\n${marker}`, trailer.xrefOffset, 'latin1');
    if (found < 0) return undefined;
    start = found + 1;
  }
  const end = pdf.indexOf('endobj', start, 'latin1');
  if (end < 0) return undefined;
  const text = pdf.toString('latin1', start + marker.length, end);
  const open = text.indexOf('<<');
  const close = text.lastIndexOf('>>');
  if (open < 0 || close < open || text.slice(0, open).trim() !== '' || text.slice(close + 2).trim() !== '') return undefined;
  const body = text.slice(open + 2, close);
  return /\/Type\s*\/Catalog\b/.test(body) ? { num, gen, body } : undefined;
}

/** The `/Lang` entry of a catalog body: its raw value and where the entry starts and ends. */
function langEntry(body: string): { raw: string; start: number; end: number } | undefined {
  const key = /\/Lang(?![A-Za-z0-9])\s*/.exec(body);
  if (!key) return undefined;
  const from = key.index + key[0].length;
  let end: number;
  if (body[from] === '<') {
    end = body.indexOf('>', from) + 1;
    if (end === 0) return undefined;
  } else if (body[from] === '(') {
    // A literal string: balanced parentheses, with backslash escapes.
    let depth = 0;
    end = -1;
    for (let i = from; i < body.length; i++) {
      const c = body[i];
      if (c === '\\') i++;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) {
        end = i + 1;
        break;
      }
    }
    if (end < 0) return undefined;
  } else return undefined;
  return { raw: body.slice(from, end), start: key.index, end };
}

/** The Info dictionary's entries, in the order readers list them. */
export function infoEntries(props: PdfProperties): string {
  const entries: Array<[string, string | undefined]> = [
    ['Title', props.title],
    ['Author', props.author],
    ['Subject', props.subject],
    ['Keywords', props.keywords],
    ['Creator', props.creator],
    ['Producer', props.producer],
  ];
  const date = pdfDate(props.date);
  return [
    // The values come from the page: anything but a non-empty string is left out.
    ...entries
      .filter(([, value]) => typeof value === 'string' && value !== '')
      .map(([k, v]) => `/${k} ${pdfTextString(v as string)}`),
    `/CreationDate ${date}`,
    `/ModDate ${date}`,
  ].join('\n');
}

/**
 * Where the entries of the Info dictionary the file ends with are (between its `<<` and `>>`), when it is a
 * top-level object the classic table places; undefined otherwise (it then stays as it is).
 */
function infoEntriesSpan(pdf: Buffer, trailer: Trailer): [number, number] | undefined {
  const info = /\/Info\s+(\d+)\s+(\d+)\s+R/.exec(trailer.dict);
  if (!info || !trailer.classic) return undefined;
  const marker = `${info[1]} ${info[2]} obj`;
  const start = offsetInTable(pdf, trailer.xrefOffset, Number(info[1]));
  if (start === undefined || pdf.toString('latin1', start, start + marker.length) !== marker) return undefined;
  const end = pdf.indexOf('endobj', start, 'latin1');
  const open = pdf.indexOf('<<', start, 'latin1');
  const close = end < 0 ? -1 : pdf.lastIndexOf('>>', end, 'latin1');
  if (open < 0 || close < open + 2 || close > end) return undefined;
  return [open + 2, close];
}

function xrefEntry(offset: number, gen: number): string {
  return `${String(offset).padStart(10, '0')} ${String(gen).padStart(5, '0')} n \n`;
}

/**
 * Returns `pdf` with an incremental update that sets its Info dictionary (and the catalog's /Lang) to
 * `props`, the old Info dictionary's entries blanked. A file it cannot read safely (no trailer where one
 * belongs, or encrypted) is returned unchanged.
 */
export function withPdfProperties(pdf: Buffer, props: PdfProperties): Buffer {
  const trailer = readTrailer(pdf);
  if (!trailer || /\/Encrypt\b/.test(trailer.dict)) return pdf;
  const size = /\/Size\s+(\d+)/.exec(trailer.dict);
  const root = /\/Root\s+(\d+)\s+(\d+)\s+R/.exec(trailer.dict);
  if (!size || !root) return pdf;
  const infoNum = Number(size[1]);
  const id = /\/ID\s*\[[^\]]*\]/.exec(trailer.dict)?.[0];

  const objects: Array<{ num: number; gen: number; text: string }> = [];
  const catalog = readCatalog(pdf, trailer, Number(root[1]), Number(root[2]));
  if (catalog) {
    const current = langEntry(catalog.body);
    const wanted = typeof props.lang === 'string' && props.lang !== '' ? pdfTextString(props.lang) : undefined;
    if (current?.raw !== wanted) {
      const rest = current ? catalog.body.slice(0, current.start) + catalog.body.slice(current.end) : catalog.body;
      const body = wanted ? `${rest.trimEnd()}\n/Lang ${wanted}` : rest;
      objects.push({ num: catalog.num, gen: catalog.gen, text: `<<${body}>>` });
    }
  }
  objects.push({ num: infoNum, gen: 0, text: `<<${infoEntries(props)}>>` });

  // The update starts on a line of its own, whatever Chromium ended its file with.
  let update = pdf[pdf.length - 1] === 0x0a ? '' : '\n';
  const offsets: number[] = [];
  for (const object of objects) {
    offsets.push(pdf.length + Buffer.byteLength(update, 'latin1'));
    update += `${object.num} ${object.gen} obj\n${object.text}\nendobj\n`;
  }
  const xrefOffset = pdf.length + Buffer.byteLength(update, 'latin1');
  // One subsection per object: the catalog keeps its number, the Info dictionary is the next free one.
  update += 'xref\n';
  objects.forEach((object, i) => {
    update += `${object.num} 1\n${xrefEntry(offsets[i], object.gen)}`;
  });
  const trailerEntries = [
    `/Size ${infoNum + 1}`,
    `/Root ${root[1]} ${root[2]} R`,
    `/Info ${infoNum} 0 R`,
    `/Prev ${trailer.xrefOffset}`,
  ];
  if (id) trailerEntries.push(id);
  update += `trailer\n<<${trailerEntries.join('\n')}>>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  const dead = infoEntriesSpan(pdf, trailer);
  const original = dead ? [pdf.subarray(0, dead[0]), Buffer.alloc(dead[1] - dead[0], 0x20), pdf.subarray(dead[1])] : [pdf];
  return Buffer.concat([...original, Buffer.from(update, 'latin1')]);
}
