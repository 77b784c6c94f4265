/**
 * Render options → print parameters. Pure: plain values in, plain values out (docs/api.md#post-v1render).
 */
import { cutText, MAX_QUOTED, quoted } from '../../cut-text.js';
import { invalid } from '../../errors.js';

/** The page formats of the spec with their portrait size in inches (ISO/ANSI). */
export const PAGE_FORMATS = {
  A3: { width: 297 / 25.4, height: 420 / 25.4 },
  A4: { width: 210 / 25.4, height: 297 / 25.4 },
  A5: { width: 148 / 25.4, height: 210 / 25.4 },
  Letter: { width: 8.5, height: 11 },
  Legal: { width: 8.5, height: 14 },
  Tabloid: { width: 11, height: 17 },
} as const;

/** A format name as the spec writes it. */
export type PageFormat = keyof typeof PAGE_FORMATS;

/** The dimension grammar: a number with an optional fraction and a unit. */
export const DIMENSION_PATTERN = '^\\d+(\\.\\d+)?(mm|cm|in|px)$';
const DIMENSION_RE = new RegExp(DIMENSION_PATTERN);
const INCHES_PER_UNIT = { in: 1, cm: 1 / 2.54, mm: 1 / 25.4, px: 1 / 96 } as const;
const MARGIN_SIDES = ['top', 'right', 'bottom', 'left'] as const;

/** Largest page side accepted, in inches. */
export const MAX_PAGE_SIDE_IN = 200;
/** Scale bounds of the spec, inclusive. */
export const SCALE_MIN = 0.1;
export const SCALE_MAX = 2;

/** The options object of a render request, as the schema admits it. */
export interface RenderOptions {
  format?: string;
  landscape?: boolean;
  printBackground?: boolean;
  scale?: number;
  margin?: { top?: string; bottom?: string; left?: string; right?: string };
  width?: string;
  height?: string;
}

/** What Chromium is asked to print, every length in inches. `landscape` is already applied to the size. */
export interface PrintParams {
  widthIn: number;
  heightIn: number;
  margin: { top: number; right: number; bottom: number; left: number };
  scale: number;
  printBackground: boolean;
  /** The request sets no size (format, landscape, width, height): the document's `@page size` decides. */
  preferCssPageSize: boolean;
  /** What of the request's page box must win over the document's `@page` rules, as CSS ('' for nothing): pageBoxCss. */
  pageCss: string;
}

/** The dimension message, shared with the schema error formatter so both paths say the same thing. */
export function notADimensionMessage(field: string, value: unknown): string {
  return `${field}: ${quoted(value)} is not a dimension (mm, cm, in, px)`;
}

/** Parses a dimension string into inches; throws INVALID_REQUEST naming `field`. */
export function parseDimension(field: string, value: string): number {
  if (typeof value !== 'string' || !DIMENSION_RE.test(value)) throw invalid(notADimensionMessage(field, value));
  const unit = value.slice(-2) as keyof typeof INCHES_PER_UNIT;
  return Number(value.slice(0, -2)) * INCHES_PER_UNIT[unit];
}

/** Finds a format case-insensitively; throws INVALID_REQUEST naming options.format. */
export function parseFormat(value: string): PageFormat {
  const found = (Object.keys(PAGE_FORMATS) as PageFormat[]).find((f) => f.toLowerCase() === String(value).toLowerCase());
  if (!found) {
    throw invalid(`options.format: ${quoted(value)} is not a supported format (${Object.keys(PAGE_FORMATS).join(', ')})`);
  }
  return found;
}

function pageSide(field: string, value: string): number {
  const inches = parseDimension(field, value);
  if (!(inches > 0)) throw invalid(`${field}: ${quoted(value)} must be greater than 0`);
  if (inches > MAX_PAGE_SIDE_IN) throw invalid(`${field}: ${quoted(value)} is larger than ${MAX_PAGE_SIDE_IN}in`);
  return inches;
}

/**
 * The refusal of a page that leaves no room across one axis, in the request's own words. Without margins
 * on that axis the page itself is too small: its size field as written (`options.width: "0.5px" leaves no
 * printable width …`). Otherwise the margins as written and the page's side as the request wrote it, or,
 * for a format's side, in the unit of the first margin (`left "150mm" + right "100mm" leave no printable
 * width on a page 210mm wide`), not in the inches the print is computed in.
 */
function noRoomMessage(
  axis: 'width' | 'height',
  sides: readonly ['left', 'right'] | readonly ['top', 'bottom'],
  options: RenderOptions,
  pageIn: number,
): string {
  const margin = options.margin ?? {};
  const size = options[axis];
  const extent = axis === 'width' ? 'wide' : 'tall';
  const written = sides.filter((side) => margin[side] !== undefined).map((side) => `${side} ${quoted(margin[side])}`);
  // A format's side is at least 5 in: only a written size can be too small with no margin on its axis.
  if (written.length === 0)
    return `options.${axis}: ${quoted(size)} leaves no printable ${axis} (a page must be at least 1px ${extent})`;
  const unit = (margin[sides[0]] ?? margin[sides[1]] ?? 'in').slice(-2) as keyof typeof INCHES_PER_UNIT;
  const page = size ?? `${Number((pageIn / INCHES_PER_UNIT[unit]).toFixed(2))}${unit}`;
  const verb = written.length === 1 ? 'leaves' : 'leave';
  return `options.margin: ${written.join(' + ')} ${verb} no printable ${axis} on a page ${cutText(page, MAX_QUOTED)} ${extent}`;
}

/** Turns validated request options into print parameters, applying docs/api.md's page-size rules. */
export function toPrintParams(options: RenderOptions = {}): PrintParams {
  const format = PAGE_FORMATS[parseFormat(options.format ?? 'A4')];
  const scale = options.scale ?? 1;
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale < SCALE_MIN || scale > SCALE_MAX) {
    throw invalid(`options.scale: ${quoted(scale)} is out of range (${SCALE_MIN} to ${SCALE_MAX.toFixed(1)})`);
  }
  const width = options.width === undefined ? undefined : pageSide('options.width', options.width);
  const height = options.height === undefined ? undefined : pageSide('options.height', options.height);

  let widthIn: number;
  let heightIn: number;
  if (width !== undefined && height !== undefined) {
    // Both set: exactly this size; neither format nor landscape applies.
    widthIn = width;
    heightIn = height;
  } else {
    const landscape = options.landscape === true;
    widthIn = width ?? (landscape ? format.height : format.width);
    heightIn = height ?? (landscape ? format.width : format.height);
  }

  const m = options.margin ?? {};
  const margin: PrintParams['margin'] = {
    top: m.top === undefined ? 0 : parseDimension('options.margin.top', m.top),
    right: m.right === undefined ? 0 : parseDimension('options.margin.right', m.right),
    bottom: m.bottom === undefined ? 0 : parseDimension('options.margin.bottom', m.bottom),
    left: m.left === undefined ? 0 : parseDimension('options.margin.left', m.left),
  };
  // Chromium needs at least a sliver of printable area; anything under 1/96 in (one CSS pixel) is none.
  const minimum = 1 / 96;
  if (widthIn - margin.left - margin.right < minimum) throw invalid(noRoomMessage('width', ['left', 'right'], options, widthIn));
  if (heightIn - margin.top - margin.bottom < minimum)
    throw invalid(noRoomMessage('height', ['top', 'bottom'], options, heightIn));
  const sizeSet = options.format !== undefined || options.landscape !== undefined || width !== undefined || height !== undefined;
  const setSides = MARGIN_SIDES.filter((side) => m[side] !== undefined);
  const pageCss = pageBoxCss(
    sizeSet ? { widthIn, heightIn } : undefined,
    Object.fromEntries(setSides.map((side) => [side, margin[side]])),
  );
  return {
    widthIn,
    heightIn,
    margin,
    scale,
    printBackground: options.printBackground === true,
    preferCssPageSize: !sizeSet,
    pageCss,
  };
}

/**
 * What the request sets of the page box, as CSS that wins over the document's `@page` rules ('' when it
 * sets nothing). Without it Chromium lays pages out at the document's `@page size` (and takes its
 * orientation) although the paper size is given, then centres that page on the paper; and a document's
 * `@page` margins beat the print parameters'. The rule sits in a cascade layer that the renderer declares
 * before any of the document's (document/page-script.ts): Chromium then lets its important declarations win over
 * the document's, whatever their selector (`@page :first`, named pages) or their own importance.
 * What the request leaves out is not pinned: a size set by none of format/landscape/width/height is the
 * document's `@page size` (A4 where it has none, see preferCssPageSize), and a margin side left out is the
 * document's `@page` margin (where its margin boxes, e.g. page numbers, are drawn), 0 where it has none.
 */
export function pageBoxCss(
  size: { widthIn: number; heightIn: number } | undefined,
  margins: Partial<Record<(typeof MARGIN_SIDES)[number], number>>,
): string {
  const inches = (value: number) => `${Number(value.toFixed(6))}in`;
  const declarations: string[] = [];
  if (size)
    declarations.push(`size:${inches(size.widthIn)} ${inches(size.heightIn)} !important`, 'page-orientation:upright !important');
  for (const side of MARGIN_SIDES) {
    const value = margins[side];
    if (value !== undefined) declarations.push(`margin-${side}:${inches(value)} !important`);
  }
  return declarations.length === 0 ? '' : `@layer pageworks-page{@page{${declarations.join(';')}}}`;
}
