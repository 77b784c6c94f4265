/**
 * PDF/UA 7.1: every piece of content is either tagged (inside a marked-content sequence the structure
 * tree points to) or an artifact. Chromium tags what the document's DOM holds, but prints the `@page`
 * margin boxes (running headers, "Page 3 of 9"), some backgrounds and generated text (`::before`,
 * `::after`) outside any marked content. The structure has no place for them, so each run of such graphics
 * objects is wrapped in `/Artifact BMC … EMC`; nothing else in the stream moves.
 */
import { scanContent } from './content-scan.js';

const PATH_CONSTRUCT = new Set(['m', 'l', 'c', 'v', 'y', 'h', 're']);
const PATH_PAINT = new Set(['S', 's', 'f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'n']);
/** Operators that end a run: wrapping across them would cross a save/restore or another marked sequence. */
const RUN_BREAKS = new Set(['q', 'Q', 'BDC', 'BMC', 'EMC']);
const SHOW_TEXT = new Set(['Tj', 'TJ', "'", '"']);

/** How `Do` operands are told apart: a Form XObject's content is marked on its own. */
export type XObjectKind = (resourceName: string) => 'form' | 'image' | undefined;

/** What marking a stream did: the new text (undefined when unchanged), and forms drawn outside marked content. */
export interface MarkedContent {
  text?: string;
  /** Form XObjects drawn outside marked content: their own content needs the same treatment. */
  forms: string[];
  /** Text objects with content outside marked content that cannot be wrapped (they contain tagged content too). */
  unmarkable: number;
}

interface Span {
  start: number;
  end: number;
  segment: number;
}

/**
 * Whether a marked-content sequence can be structure: only one with an MCID is (a property list named
 * by resource may hold one, so it counts). Inside text Chromium also writes `/Span <</ActualText (fi)>> BDC`
 * around a ligature whose glyph stands for several characters; that only says what the glyph reads as, so
 * a text object holding nothing else is still outside the structure and can be an artifact.
 */
function tags(op: string, properties: string): boolean {
  return op === 'BDC' && !(properties.startsWith('<<') && !/\/MCID\b/.test(properties));
}

/** Wraps every run of graphics objects outside marked content in an `/Artifact` sequence. */
export function markArtifacts(text: string, kindOf: XObjectKind): MarkedContent {
  const objects: Span[] = [];
  const forms: string[] = [];
  let depth = 0;
  let segment = 0;
  let open: { start: number; text: boolean; tagged: boolean; shows: boolean } | undefined;
  let unmarkable = 0;
  scanContent(text, ({ op, operand, start, end }) => {
    if (op === 'BDC' || op === 'BMC') {
      if (open?.text && tags(op, operand(1))) open.tagged = true;
      depth++;
    } else if (op === 'EMC') depth = Math.max(0, depth - 1);
    if (open?.text) {
      if (op === 'ET') {
        if (!open.tagged) objects.push({ start: open.start, end, segment });
        else if (open.shows) unmarkable++;
        open = undefined;
      } else if (depth === 0 && SHOW_TEXT.has(op)) open.shows = true;
      return;
    }
    if (depth > 0) {
      if (RUN_BREAKS.has(op)) segment++;
      return;
    }
    if (op === 'BT') {
      open = { start, text: true, tagged: false, shows: false };
    } else if (PATH_CONSTRUCT.has(op)) open ??= { start, text: false, tagged: false, shows: false };
    else if (PATH_PAINT.has(op) && open) {
      objects.push({ start: open.start, end, segment });
      open = undefined;
    } else if (op === 'sh') objects.push({ start, end, segment });
    else if (op === 'ID') {
      objects.push({ start: open?.start ?? start, end, segment });
      open = undefined;
    } else if (op === 'BI') open = { start, text: false, tagged: false, shows: false };
    else if (op === 'Do') {
      const resource = operand(0).slice(1);
      if (kindOf(resource) === 'form') {
        forms.push(resource);
        segment++;
      } else objects.push({ start, end, segment });
    } else if (RUN_BREAKS.has(op)) segment++;
  });
  if (objects.length === 0) return { forms, unmarkable };
  let out = '';
  let at = 0;
  for (let i = 0; i < objects.length; ) {
    let j = i;
    while (j + 1 < objects.length && objects[j + 1].segment === objects[i].segment) j++;
    out += `${text.slice(at, objects[i].start)}/Artifact BMC\n${text.slice(objects[i].start, objects[j].end)}\nEMC`;
    at = objects[j].end;
    i = j + 1;
  }
  return { text: out + text.slice(at), forms, unmarkable };
}
