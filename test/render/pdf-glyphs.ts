/**
 * Which glyphs a Chromium PDF actually draws, read from its content streams: the check for empty boxes.
 *
 * A character no font has is drawn with the primary font's glyph 0 (.notdef, the empty box). Chromium's
 * PDF backend (Skia) writes TrueType fonts as Type0/Identity-H (2-byte codes = glyph ids, so .notdef is
 * code 0000) and CFF or bitmap fonts (Noto CJK, Noto Color Emoji) as Type3 fonts whose /Differences name
 * every code `/g<glyph id in hex>` (so .notdef is `/g0`). pdftotext cannot see this: the text layer
 * (ToUnicode, ActualText) still holds the intended character.
 */
import zlib from 'node:zlib';

interface PdfObject {
  dict: string;
  stream?: Buffer;
}

/** How one font resource turns the bytes of a shown string into glyph ids (0 = .notdef). */
interface FontDecoder {
  name: string;
  glyphs(bytes: Buffer): number[];
}

/** What the PDF's pages draw: every font used, how many glyphs, and the .notdef glyphs per page and font. */
export interface GlyphReport {
  fonts: string[];
  glyphs: number;
  notdef: Array<{ page: number; font: string; count: number }>;
}

function parseObjects(pdf: Buffer): Map<number, PdfObject> {
  const text = pdf.toString('latin1');
  const objects = new Map<number, PdfObject>();
  const start = /(\d+) 0 obj\b/g;
  for (let m = start.exec(text); m; m = start.exec(text)) {
    const bodyStart = m.index + m[0].length;
    const end = text.indexOf('endobj', bodyStart);
    const streamAt = /\bstream\r?\n/.exec(text.slice(bodyStart, end));
    if (!streamAt) {
      objects.set(Number(m[1]), { dict: text.slice(bodyStart, end) });
      continue;
    }
    const dict = text.slice(bodyStart, bodyStart + streamAt.index);
    const length = /\/Length (\d+)(?!\s+\d+\s+R)/.exec(dict);
    const dataStart = bodyStart + streamAt.index + streamAt[0].length;
    const dataEnd = length ? dataStart + Number(length[1]) : text.lastIndexOf('endstream', end);
    let data = pdf.subarray(dataStart, dataEnd);
    if (/\/Filter\s*\/FlateDecode/.test(dict)) data = zlib.inflateSync(data);
    objects.set(Number(m[1]), { dict, stream: data });
    start.lastIndex = end;
  }
  return objects;
}

/** The raw value of `/key` in a dictionary's text: a nested dictionary, an array, a reference or a single token. */
function value(dict: string, key: string): string | undefined {
  const m = new RegExp(`/${key}(?![A-Za-z0-9])\\s*`).exec(dict);
  if (!m) return undefined;
  const i = m.index + m[0].length;
  const open = dict.startsWith('<<', i) ? '<<' : dict[i] === '[' ? '[' : undefined;
  if (open) {
    const close = open === '<<' ? '>>' : ']';
    let depth = 0;
    for (let j = i; j < dict.length; j++) {
      if (dict.startsWith(open, j)) depth++;
      else if (dict.startsWith(close, j) && --depth === 0) return dict.slice(i, j + close.length);
    }
    throw new Error(`unbalanced ${open} after /${key}`);
  }
  const ref = /^(\d+) 0 R/.exec(dict.slice(i));
  if (ref) return ref[0];
  const token = /^\/[^\s/<>[\]()]*|^[^\s/<>[\]()]*/.exec(dict.slice(i));
  return token?.[0] ?? '';
}

class PdfReader {
  private readonly objects: Map<number, PdfObject>;
  private readonly fonts = new Map<number, FontDecoder>();

  constructor(pdf: Buffer) {
    this.objects = parseObjects(pdf);
  }

  object(ref: string): PdfObject {
    const id = /^(\d+) 0 R$/.exec(ref.trim());
    const obj = id ? this.objects.get(Number(id[1])) : undefined;
    if (!obj) throw new Error(`no object ${ref}`);
    return obj;
  }

  /** A dictionary value, following one indirect reference. */
  resolved(dict: string, key: string): string | undefined {
    const v = value(dict, key);
    return v !== undefined && /^\d+ 0 R$/.test(v) ? this.object(v).dict : v;
  }

  /** The page objects in document order (the page tree walked from the catalog). */
  pages(): PdfObject[] {
    const catalog = [...this.objects.values()].find((o) => /\/Type\s*\/Catalog\b/.test(o.dict));
    if (!catalog) throw new Error('no catalog');
    const walk = (node: PdfObject): PdfObject[] => {
      if (!/\/Type\s*\/Pages\b/.test(node.dict)) return [node];
      const kids = value(node.dict, 'Kids') ?? '[]';
      return [...kids.matchAll(/(\d+) 0 R/g)].flatMap((k) => walk(this.object(k[0])));
    };
    return walk(this.object(value(catalog.dict, 'Pages') ?? ''));
  }

  /** Name → reference entries of a resource sub-dictionary (/Font, /XObject). */
  entries(resources: string, key: string): Map<string, string> {
    const sub = this.resolved(resources, key) ?? '';
    return new Map([...sub.matchAll(/\/([^\s/<>[\]()]+)\s+(\d+ 0 R)/g)].map((m) => [m[1], m[2]]));
  }

  font(ref: string): FontDecoder {
    const id = Number(ref.split(' ')[0]);
    let decoder = this.fonts.get(id);
    if (!decoder) {
      decoder = this.decoder(this.object(ref).dict);
      this.fonts.set(id, decoder);
    }
    return decoder;
  }

  private decoder(dict: string): FontDecoder {
    const subtype = value(dict, 'Subtype');
    if (subtype === '/Type0') {
      const descendant = (value(dict, 'DescendantFonts') ?? '').replace(/[[\]]/g, '').trim();
      const cidMap = this.resolved(this.object(descendant).dict, 'CIDToGIDMap');
      if (value(dict, 'Encoding') !== '/Identity-H' || cidMap !== '/Identity') throw new Error(`unsupported Type0 font: ${dict}`);
      return {
        name: (value(dict, 'BaseFont') ?? '?').slice(1),
        glyphs: (bytes) => Array.from({ length: bytes.length >> 1 }, (_, i) => bytes.readUInt16BE(2 * i)),
      };
    }
    if (subtype === '/Type3') {
      const names = new Map<number, string>();
      let code = 0;
      for (const token of (value(this.resolved(dict, 'Encoding') ?? '', 'Differences') ?? '').match(/\/[^\s/[\]]+|\d+/g) ?? []) {
        if (token.startsWith('/')) names.set(code++, token.slice(1));
        else code = Number(token);
      }
      const descriptor = this.resolved(dict, 'FontDescriptor') ?? '';
      return {
        name: value(descriptor, 'FontName')?.slice(1) ?? 'Type3',
        glyphs: (bytes) =>
          [...bytes].map((b) => {
            const glyph = /^g([0-9A-Fa-f]+)$/.exec(names.get(b) ?? '');
            if (!glyph) throw new Error(`Type3 code ${b} has no /g<id> name`);
            return parseInt(glyph[1], 16);
          }),
      };
    }
    throw new Error(`unsupported font subtype ${subtype}`);
  }
}

type Token =
  | { kind: 'string'; bytes: Buffer }
  | { kind: 'name' | 'op' | 'number'; text: string }
  | { kind: 'array'; items: Token[] };

/** Tokenises a content stream into operands and operators (arrays nested, dictionaries skipped). */
function tokens(content: Buffer): Token[] {
  const s = content.toString('latin1');
  const stack: Token[][] = [[]];
  const push = (t: Token) => stack[stack.length - 1].push(t);
  for (let i = 0; i < s.length; ) {
    const c = s[i];
    if (/\s/.test(c)) i++;
    else if (c === '%') i = s.indexOf('\n', i) === -1 ? s.length : s.indexOf('\n', i);
    else if (s.startsWith('<<', i) || s.startsWith('>>', i)) i += 2;
    else if (c === '<') {
      const end = s.indexOf('>', i);
      const hex = s.slice(i + 1, end).replace(/\s/g, '');
      push({ kind: 'string', bytes: Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex') });
      i = end + 1;
    } else if (c === '(') {
      const out: number[] = [];
      let depth = 1;
      for (i++; depth > 0; i++) {
        const ch = s[i];
        if (ch === '\\') {
          const next = s[++i];
          const octal = /^[0-7]{1,3}/.exec(s.slice(i, i + 3));
          if (octal) {
            out.push(parseInt(octal[0], 8));
            i += octal[0].length - 1;
          } else out.push(({ n: 10, r: 13, t: 9, b: 8, f: 12 } as Record<string, number>)[next] ?? next.charCodeAt(0));
        } else {
          if (ch === '(') depth++;
          else if (ch === ')' && --depth === 0) break;
          out.push(ch.charCodeAt(0));
        }
      }
      push({ kind: 'string', bytes: Buffer.from(out) });
    } else if (c === '[') {
      stack.push([]);
      i++;
    } else if (c === ']') {
      const items = stack.pop() ?? [];
      push({ kind: 'array', items });
      i++;
    } else {
      const word = /^\/?[^\s/<>[\]()%]+|^\//.exec(s.slice(i, i + 256))?.[0] ?? c;
      push(
        word.startsWith('/')
          ? { kind: 'name', text: word.slice(1) }
          : /^[-+.\d]/.test(word)
            ? { kind: 'number', text: word }
            : { kind: 'op', text: word },
      );
      i += word.length;
    }
  }
  return stack[0];
}

/** Reads every page's text-showing operators (and those of the form XObjects it draws) and counts .notdef glyphs. */
export function glyphReport(pdf: Buffer): GlyphReport {
  const reader = new PdfReader(pdf);
  const fonts = new Set<string>();
  const notdef: GlyphReport['notdef'] = [];
  let glyphs = 0;
  reader.pages().forEach((page, index) => {
    const perFont = new Map<string, number>();
    const draw = (content: Buffer, resources: string, depth: number): void => {
      const fontRefs = reader.entries(resources, 'Font');
      const xobjects = reader.entries(resources, 'XObject');
      let font: FontDecoder | undefined;
      // The text font is graphics state: Q restores the one saved by the matching q.
      const saved: Array<FontDecoder | undefined> = [];
      let operands: Token[] = [];
      const show = (t: Token) => {
        if (t.kind !== 'string') return;
        if (!font) throw new Error('text shown before any Tf');
        for (const glyph of font.glyphs(t.bytes)) {
          glyphs++;
          if (glyph === 0) perFont.set(font.name, (perFont.get(font.name) ?? 0) + 1);
        }
      };
      for (const t of tokens(content)) {
        if (t.kind !== 'op') {
          operands.push(t);
          continue;
        }
        const last = operands[operands.length - 1];
        if (t.text === 'q') saved.push(font);
        else if (t.text === 'Q') font = saved.pop();
        else if (t.text === 'Tf') {
          const name = operands[operands.length - 2];
          const ref = name?.kind === 'name' ? fontRefs.get(name.text) : undefined;
          if (!ref) throw new Error(`Tf names an unknown font resource`);
          font = reader.font(ref);
          fonts.add(font.name);
        } else if (t.text === 'Tj' || t.text === "'" || t.text === '"') show(last);
        else if (t.text === 'TJ' && last?.kind === 'array') last.items.forEach(show);
        else if (t.text === 'Do' && last?.kind === 'name' && depth < 8) {
          const ref = xobjects.get(last.text);
          const form = ref ? reader.object(ref) : undefined;
          if (form?.stream && /\/Subtype\s*\/Form\b/.test(form.dict))
            draw(form.stream, reader.resolved(form.dict, 'Resources') ?? resources, depth + 1);
        }
        operands = [];
      }
    };
    const resources = reader.resolved(page.dict, 'Resources') ?? '';
    const contents = value(page.dict, 'Contents') ?? '';
    const streams = [...contents.matchAll(/(\d+) 0 R/g)].map((m) => reader.object(m[0]).stream ?? Buffer.alloc(0));
    draw(Buffer.concat(streams.flatMap((s) => [s, Buffer.from('\n')])), resources, 0);
    for (const [font, count] of perFont) notdef.push({ page: index + 1, font, count });
  });
  return { fonts: [...fonts].sort(), glyphs, notdef };
}
