/**
 * The files of a zip the render service answers a split with: read from its central directory, each stored
 * or deflated, its CRC-32 and size checked. Only what that archive uses (no ZIP64, no encryption); anything
 * else is an answer the client cannot read.
 */
import zlib from 'node:zlib';

/** One PDF of a split assembly: its name in the zip (a part's title or the range's pages) and its bytes. */
export interface ZipFile {
  name: string;
  pdf: Buffer;
}

const END = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The files of `zip`, in order; an Error saying what is wrong when it is not such an archive. */
export function zipEntries(zip: Buffer): ZipFile[] {
  // The end record is the last 22 bytes, unless the archive has a comment (the service writes none).
  const floor = Math.max(0, zip.length - 22 - 0xffff);
  let end = zip.length - 22;
  while (end >= floor && zip.readUInt32LE(end) !== END) end--;
  if (end < floor) throw new Error('the zip has no end record');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files: ZipFile[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) throw new Error(`zip entry ${i + 1}: no directory header`);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const packed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL) throw new Error(`${name}: no local header`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + packed);
    if (method !== 0 && method !== 8) throw new Error(`${name}: compression method ${method} is not stored or deflated`);
    const pdf = method === 0 ? data : zlib.inflateRawSync(data);
    if (pdf.length !== size || zlib.crc32(pdf) !== crc) throw new Error(`${name}: its bytes do not match its size and CRC`);
    files.push({ name, pdf });
  }
  return files;
}
