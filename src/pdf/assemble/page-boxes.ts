/**
 * The part of each page a reader sees, as stamps are laid on it: its crop box within its media box, and
 * the turn a viewer gives it (/Rotate, inherited through the page tree like both boxes).
 */
import { PdfFile } from '../profiles/pdf-file.js';
import type { PdfRaw, PdfValue } from '../profiles/pdf-objects.js';

/**
 * The part of a page a reader sees: its crop box (its media box when it has none), where it starts and its
 * size in points of the page's own space, and `rotate`, the degrees clockwise a viewer turns it (0, 90, 180
 * or 270).
 */
export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
  rotate: number;
}

/** A page's entry, its own or the nearest one its page tree gives it (MediaBox, CropBox and Rotate inherit). */
function inherited(file: PdfFile, num: number, key: string): PdfValue | undefined {
  let node = file.dict(file.refTo(num));
  for (let depth = 0; node && depth < 32; depth++) {
    const value = node.get(key);
    if (value !== undefined) return file.resolve(value);
    node = file.dict(node.get('Parent'));
  }
  return undefined;
}

/** A rectangle entry as its lower-left and upper-right corners (they may be written in either order). */
function rectangle(file: PdfFile, value: PdfValue | undefined): [number, number, number, number] | undefined {
  const v = file.resolve(value);
  if (!Array.isArray(v) || v.length !== 4) return undefined;
  const [a, b, c, d] = v.map((n) => Number((file.resolve(n) as PdfRaw | undefined)?.text ?? Number.NaN));
  if (![a, b, c, d].every(Number.isFinite) || a === c || b === d) return undefined;
  return [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
}

/**
 * The box a reader sees of a page: its crop box within its media box (a crop box reaching past the media
 * box is cut to it, as readers show it), US Letter when it has no media box; and its rotation.
 */
export function visibleBox(file: PdfFile, num: number): PageBox {
  const media = rectangle(file, inherited(file, num, 'MediaBox')) ?? [0, 0, 612, 792];
  const crop = rectangle(file, inherited(file, num, 'CropBox'));
  let [x0, y0, x1, y1] = media;
  if (crop) {
    const cut = [Math.max(x0, crop[0]), Math.max(y0, crop[1]), Math.min(x1, crop[2]), Math.min(y1, crop[3])];
    if (cut[0] < cut[2] && cut[1] < cut[3]) [x0, y0, x1, y1] = cut;
  }
  const degrees = Number((inherited(file, num, 'Rotate') as PdfRaw | undefined)?.text ?? 0);
  // A rotation that is not a multiple of 90 is an error readers ignore.
  const rotate = Number.isInteger(degrees) && degrees % 90 === 0 ? ((degrees % 360) + 360) % 360 : 0;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rotate };
}

/**
 * The matrix that lays a stamp made at the page's viewed size, its lower-left corner at the origin, on the
 * page's own space so that it stands upright in the reader: the page turns `rotate` degrees clockwise when
 * shown, so the stamp is turned as far the other way, from the corner the reader sees at the lower left.
 */
export function placement(box: PageBox): [number, number, number, number, number, number] {
  const [x0, y0, x1, y1] = [box.x, box.y, box.x + box.width, box.y + box.height];
  if (box.rotate === 90) return [0, 1, -1, 0, x1, y0];
  if (box.rotate === 180) return [-1, 0, 0, -1, x1, y1];
  if (box.rotate === 270) return [0, -1, 1, 0, x0, y1];
  return [1, 0, 0, 1, x0, y0];
}

/** Each page's box, in order. */
export function pageBoxes(pdf: Uint8Array): PageBox[] {
  const file = new PdfFile(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  return file.pages().map((num) => visibleBox(file, num));
}
