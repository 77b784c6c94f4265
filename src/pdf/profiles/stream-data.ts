/**
 * A stream's data as its filters leave it: as stored, inflated when FlateDecode is its one filter, undefined
 * under any other. Inflating stops at a cap the caller chooses, never at what the file claims, so a few
 * stored bytes cannot expand past what the caller can hold.
 */
import zlib from 'node:zlib';
import { nameOf, type PdfDict } from './pdf-objects.js';
import { UnreadablePdf } from './unreadable-pdf.js';

/** Most bytes one stream inflates to unless the caller asks for less (a printed page's content stays far below). */
export const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

/** `data` inflated, stopping at `maxBytes` of output: the cap is what the caller can hold, not what the file claims. */
function inflate(data: Buffer, num: number, maxBytes: number): Buffer {
  try {
    return zlib.inflateSync(data, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new UnreadablePdf(`stream ${num} inflates to more than ${maxBytes} bytes`);
    throw new UnreadablePdf(`stream ${num} does not inflate (${(error as Error).message})`);
  }
}

/** Stream `num`'s stored `data` as the filters of its dictionary `value` leave it (undefined: a filter not read). */
export function decodeStream(num: number, value: PdfDict, data: Buffer, maxBytes: number): Buffer | undefined {
  const filter = value.get('Filter');
  const filters = Array.isArray(filter) ? filter.map(nameOf) : filter ? [nameOf(filter)] : [];
  if (filters.length === 0) {
    if (data.length > maxBytes) throw new UnreadablePdf(`stream ${num} is more than ${maxBytes} bytes`);
    return data;
  }
  if (filters.length === 1 && filters[0] === 'FlateDecode' && !value.has('DecodeParms')) return inflate(data, num, maxBytes);
  return undefined;
}
