/**
 * An XMP packet read as XML: its properties by namespace URI, whatever prefix binds it and whichever form
 * (an attribute of `rdf:Description`, or an element of its own), each with where it stands in the text so
 * that it can be cut out. A claim is read the way a validator reads it, so `a:part = "3"` with `a` bound
 * to the PDF/A namespace is found, and no regular expression ever runs over the packet: the tokenizer is
 * linear, and the nesting is bounded (an XMP packet nests a handful of levels).
 */
import { Parser } from 'htmlparser2';

/** One property of the packet: its namespace, local name, text, and the span of text that states it. */
export interface XmpProperty {
  ns: string;
  name: string;
  value: string;
  start: number;
  /** Exclusive. */
  end: number;
}

/** Deepest element nesting read; deeper, the packet is not an XMP packet one could trust. */
const MAX_NESTING = 64;

/** The packet cannot be read as XMP (a DTD, which could define entities a validator would expand; nesting too deep). */
export class UnreadableXmp extends Error {}

interface Frame {
  ns: string | undefined;
  name: string;
  start: number;
  scope: Map<string, string>;
  text: string;
  /** Whether an element opened inside it (then it is a structure, and its value is empty). */
  parent: boolean;
}

interface Attribute {
  name: string;
  value: string;
  start: number;
  end: number;
}

function split(qname: string): [string, string] {
  const colon = qname.indexOf(':');
  return colon < 0 ? ['', qname] : [qname.slice(0, colon), qname.slice(colon + 1)];
}

/**
 * The properties of `xmp` whose namespace `wanted` accepts: attributes of any element, and elements (a
 * structured one, with elements inside, has an empty value). Throws UnreadableXmp for a packet it will not read.
 */
export function readXmpProperties(xmp: string, wanted: (ns: string) => boolean): XmpProperty[] {
  const out: XmpProperty[] = [];
  const stack: Frame[] = [];
  let attributes: Attribute[] = [];
  const parser: Parser = new Parser(
    {
      onattribute(name, value, quote) {
        // XML quotes every attribute value; the span runs from the name to the closing quote.
        if (!quote) throw new UnreadableXmp(`attribute ${name} has no quoted value`);
        const start = parser.startIndex;
        const close = xmp.indexOf(quote, xmp.indexOf(quote, start + name.length) + 1);
        if (close < 0) throw new UnreadableXmp(`attribute ${name} is not closed`);
        attributes.push({ name, value, start, end: close + 1 });
      },
      onopentag(qname) {
        if (stack.length >= MAX_NESTING) throw new UnreadableXmp(`elements nest more than ${MAX_NESTING} deep`);
        const scope = new Map(stack.at(-1)?.scope ?? []);
        for (const a of attributes) {
          if (a.name === 'xmlns') scope.set('', a.value);
          else if (a.name.startsWith('xmlns:')) scope.set(a.name.slice(6), a.value);
        }
        const [prefix, name] = split(qname);
        stack.push({ ns: scope.get(prefix), name, start: parser.startIndex, scope, text: '', parent: false });
        for (const a of attributes) {
          const [attrPrefix, attrName] = split(a.name);
          // An attribute without a prefix has no namespace (XML Namespaces 6.2), and xmlns ones declare.
          if (attrPrefix === '' || attrPrefix === 'xmlns') continue;
          const ns = scope.get(attrPrefix);
          if (ns !== undefined && wanted(ns)) out.push({ ns, name: attrName, value: a.value.trim(), start: a.start, end: a.end });
        }
        attributes = [];
        const parent = stack.at(-2);
        if (parent) parent.parent = true;
      },
      ontext(text) {
        const top = stack.at(-1);
        if (top && !top.parent) top.text += text;
      },
      onclosetag() {
        const frame = stack.pop();
        if (frame?.ns !== undefined && wanted(frame.ns)) {
          const value = frame.parent ? '' : frame.text.trim();
          out.push({ ns: frame.ns, name: frame.name, value, start: frame.start, end: parser.endIndex + 1 });
        }
      },
      onprocessinginstruction(name) {
        // `<!DOCTYPE …>` comes here as `!doctype`; `<?xpacket …?>` as `?xpacket`.
        if (name.startsWith('!')) throw new UnreadableXmp('the packet has a document type declaration');
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xmp);
  return out;
}

/** `text` without the spans given (they do not overlap: each is one property). */
export function cut(text: string, spans: ReadonlyArray<{ start: number; end: number }>): string {
  let out = '';
  let at = 0;
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    if (span.start < at) continue;
    out += text.slice(at, span.start);
    at = span.end;
  }
  return out + text.slice(at);
}
