/**
 * A zip archive of named files (PKWARE APPNOTE 6.3: local headers, data, central directory, end record),
 * each deflated when that makes it smaller, else stored, names in UTF-8 (general purpose bit 11). Enough
 * for a split assembly's PDFs: no ZIP64, so at most 65,535 files and 4 GiB, far past the output cap.
 */
import zlib from 'node:zlib';

/** One file of the archive. */
export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

const UTF8_NAMES = 0x0800;
/**
 * "Made by" Unix, version 2.0, with each file's mode (rw-r--r--): Info-ZIP's unzip reads a name from an
 * archive made by MS-DOS as code page 437 even with the UTF-8 flag set, so `Café.pdf` unpacked as `Caf+®.pdf`.
 */
const MADE_BY_UNIX = (3 << 8) | 20;
const FILE_MODE = (0o100644 << 16) >>> 0;
/** 1980-01-01 00:00 in MS-DOS form: the archive's dates say nothing, so its bytes depend only on its files. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/** The archive of `entries`, in order. */
export function zipFiles(entries: readonly ZipEntry[]): Buffer {
  if (entries.length > 0xffff) throw new RangeError(`a zip without ZIP64 holds at most 65,535 files, not ${entries.length}`);
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength);
    const deflated = zlib.deflateRawSync(data);
    const stored = deflated.length >= data.length;
    const body = stored ? data : deflated;
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(stored ? 0 : 8, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(MADE_BY_UNIX, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(UTF8_NAMES, 8);
    header.writeUInt16LE(stored ? 0 : 8, 10);
    header.writeUInt16LE(0, 12);
    header.writeUInt16LE(DOS_DATE, 14);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(body.length, 20);
    header.writeUInt32LE(data.length, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(FILE_MODE, 38);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    chunks.push(local, name, body);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, directory, end]);
}

/**
 * Names Windows keeps for devices, whatever follows a dot: a file unpacked as `CON.pdf` or `nul.backup.pdf`
 * cannot be created there, so such a name gets an underscore (`CON_.pdf`).
 */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(?=\s*(\.|$))/i;

/**
 * A file name made safe for any unpacker: no path separators, controls, bidirectional controls or
 * characters Windows refuses, none of its device names, at most 100 characters, never `.` or `..`;
 * `fallback` when nothing is left.
 */
export function safeFileName(name: string, fallback: string): string {
  const cleaned = name
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069/\\:*?"<>|]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  const short = Array.from(cleaned).slice(0, 100).join('').trim();
  return short === '' ? fallback : short.replace(WINDOWS_DEVICE, '$1_');
}
