/**
 * How an assembly was finished, as its render record keeps it for the dashboard's render page: each part's
 * outline title, page selection and rotation, the stamps (layer, pages, the start of their text and HTML),
 * the metadata the request gave and the split's files. Everything is cut short, so a record stays well
 * within its 32 KiB; nothing secret is kept (`protect` and `sign` are not read here at all).
 */
import { Parser } from 'htmlparser2';
import { pageIndexes } from '../pdf/index.js';
import type { RecordAssembly, RecordMetadata, RecordPart, RecordSplit, RecordStamp } from '../render/index.js';
import { reportText } from '../report/report-text.js';
import type { AssembleRequest } from './schema.js';

/** Longest page selection kept (a selection may be 1,000 characters). */
const MAX_SELECTION = 100;
/** Longest start of a stamp's visible text kept. */
const MAX_STAMP_TEXT = 120;
/** Longest start of a stamp's HTML kept. */
const MAX_STAMP_SOURCE = 200;
/** Longest metadata value or file name kept (a metadata value may be 2,000 characters). */
const MAX_VALUE = 300;
/** Most bytes the split's file names take: a 5,000-file split keeps the first names and its whole count. */
const MAX_NAMES_BYTES = 2048;
const METADATA_FIELDS = ['title', 'author', 'subject', 'keywords', 'lang'] as const;

/** Text as a record keeps it: controls replaced, runs of whitespace as one space, cut to `max` with an ellipsis. */
function shortText(text: string, max: number): string {
  const flat = reportText(text, text.length).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Elements whose content a page does not show. */
const UNSHOWN = new Set(['head', 'script', 'style', 'template', 'title', 'noscript']);

/** The text a stamp shows, entities decoded (the page escapes it again when it shows it). */
function visibleText(html: string): string {
  const chunks: string[] = [];
  let hidden = 0;
  let length = 0;
  const parser = new Parser({
    onopentagname(name) {
      if (UNSHOWN.has(name)) hidden += 1;
    },
    onclosetag(name) {
      if (UNSHOWN.has(name) && hidden > 0) hidden -= 1;
    },
    ontext(text) {
      // The text past what is kept is not gathered (a stamp may be 1 MiB).
      if (hidden > 0 || length > MAX_STAMP_TEXT * 4) return;
      chunks.push(text);
      length += text.length;
    },
  });
  parser.end(html);
  return chunks.join(' ');
}

/** The stamp's HTML: its body's content when it has a body (its head is mostly style), else all of it. */
function bodySource(html: string): string {
  const lower = html.toLowerCase();
  const start = lower.indexOf('<body');
  const open = start < 0 ? -1 : html.indexOf('>', start);
  if (open < 0) return html;
  const end = lower.indexOf('</body>', open);
  const body = html.slice(open + 1, end < 0 ? undefined : end);
  return body.trim() === '' ? html : body;
}

function recordStamp(stamp: NonNullable<AssembleRequest['stamps']>[number], i: number, pages: number): RecordStamp {
  const text = shortText(visibleText(stamp.html), MAX_STAMP_TEXT);
  return {
    layer: stamp.layer ?? 'over',
    ...(stamp.pages === undefined ? {} : { selection: shortText(stamp.pages, MAX_SELECTION) }),
    // The stamps step drew it on exactly these pages (and refused the request had they been out of range).
    stamped: stamp.pages === undefined ? pages : pageIndexes(stamp.pages, pages, `stamps[${i}].pages`).length,
    ...(text === '' ? {} : { text }),
    source: shortText(bodySource(stamp.html.slice(0, 64 * 1024)), MAX_STAMP_SOURCE),
  };
}

function recordSplit(split: NonNullable<AssembleRequest['split']>, files: readonly string[]): RecordSplit {
  const names: string[] = [];
  let used = 2;
  for (const file of files) {
    const name = shortText(file, MAX_VALUE);
    used += Buffer.byteLength(JSON.stringify(name)) + 1;
    if (used > MAX_NAMES_BYTES) break;
    names.push(name);
  }
  if (split === 'parts') return { by: 'parts', files: files.length, names };
  if ('every' in split) return { by: 'every', every: split.every, files: files.length, names };
  return { by: 'ranges', files: files.length, names };
}

/** The stamps, metadata and split of an assembly of `pages` pages whose answer holds `files` (a split's names). */
export function recordFinishing(
  request: AssembleRequest,
  pages: number,
  files: readonly string[] | undefined,
): Pick<RecordAssembly, 'stamps' | 'metadata' | 'split'> {
  const given = request.metadata;
  const metadata: RecordMetadata[] = given
    ? METADATA_FIELDS.flatMap((field) => {
        const value = given[field];
        return value === undefined || value.trim() === '' ? [] : [{ field, value: shortText(value, MAX_VALUE) }];
      })
    : [];
  return {
    ...(request.stamps?.length ? { stamps: request.stamps.map((s, i) => recordStamp(s, i, pages)) } : {}),
    ...(metadata.length > 0 ? { metadata } : {}),
    ...(request.split && files ? { split: recordSplit(request.split, files) } : {}),
  };
}

/** A part's outline title, page selection and rotation as its record keeps them. */
export function recordPartFinishing(
  outlineTitle: string,
  select: { pages?: string; rotate?: number } | undefined,
): Pick<RecordPart, 'outlineTitle' | 'selection' | 'rotate'> {
  const title = shortText(outlineTitle, MAX_VALUE);
  return {
    ...(title === '' ? {} : { outlineTitle: title }),
    ...(select?.pages === undefined ? {} : { selection: shortText(select.pages, MAX_SELECTION) }),
    ...(select?.rotate ? { rotate: select.rotate } : {}),
  };
}
