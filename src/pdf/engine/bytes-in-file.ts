/**
 * A message's bytes moved through a file instead of the IPC channel. Through the channel, bytes cross
 * in pieces of a socket buffer (about 200 KiB), each piece a wake-up of the other process: on a loaded
 * machine a megabyte then costs more than a merge of it. So when a message's byte arrays add up to
 * INLINE_MAX_BYTES or more, they are written one after another into one file of the process's private
 * directory (mode 0700; the file 0600, removed once read), and the message carries the file and where
 * each array was in the value; smaller ones cross inline, as fast as a file at that size. The directory
 * and the files' names are bytes-directory.ts's.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';

/** Below this many bytes in all, a message's byte arrays cross inline in the message itself (the default). */
export const INLINE_MAX_BYTES = 64 * 1024;

/**
 * Up to this many bytes the service writes and reads the file at once: a few milliseconds of copying, as
 * the IPC channel's serialization took, where each step through libuv's thread pool is one more wake-up
 * on a loaded machine. Larger ones go through the thread pool, the event loop turning meanwhile.
 */
const SYNC_MAX_BYTES = 8 * 1024 * 1024;

/** Where a message's byte arrays went: the file, then each array's place in the value and its length, in file order. */
export interface BytesInFile {
  file: string;
  arrays: Array<{ at: Array<string | number>; length: number }>;
}

/** Whether `value` is a plain object (the ones whose fields are walked for bytes). */
export const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** A value taken apart: the value with each byte array replaced by null, and the arrays with their places. */
export interface TakenBytes {
  value: unknown;
  arrays: Array<{ at: Array<string | number>; bytes: Uint8Array }>;
  total: number;
}

/**
 * `value` with the byte arrays of its plain objects and arrays taken out (the caller's value untouched), or
 * undefined when they add up to less than `inlineMax` bytes (the value then crosses as it is).
 */
export function takeBytes(value: unknown, inlineMax = INLINE_MAX_BYTES): TakenBytes | undefined {
  const taken: TakenBytes = { value: undefined, arrays: [], total: 0 };
  const walk = (v: unknown, at: Array<string | number>): unknown => {
    if (v instanceof Uint8Array) {
      taken.arrays.push({ at, bytes: v });
      taken.total += v.byteLength;
      return null;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...at, i]));
    if (v !== null && typeof v === 'object' && isPlain(v)) {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, [...at, k])]));
    }
    return v;
  };
  taken.value = walk(value, []);
  return taken.total >= inlineMax ? taken : undefined;
}

/** Where `taken`'s arrays are once written to `file`. */
export function bytesInFile(taken: TakenBytes, file: string): BytesInFile {
  return { file, arrays: taken.arrays.map(({ at, bytes }) => ({ at, length: bytes.byteLength })) };
}

/** The arrays past their first `skip` bytes (what a short write left). */
function after(arrays: readonly Uint8Array[], skip: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  for (const bytes of arrays) {
    if (skip >= bytes.byteLength) skip -= bytes.byteLength;
    else {
      rest.push(skip > 0 ? bytes.subarray(skip) : bytes);
      skip = 0;
    }
  }
  return rest;
}

/** Writes `taken`'s arrays to a new file `file` (0600); past SYNC_MAX_BYTES off the event loop. A failed write leaves no file. */
export async function writeBytes(file: string, taken: TakenBytes): Promise<void> {
  if (taken.total <= SYNC_MAX_BYTES) return writeBytesSync(file, taken);
  const all = taken.arrays.map((a) => a.bytes);
  const handle = await fsp.open(file, 'wx', 0o600);
  try {
    for (let done = 0; done < taken.total; ) {
      const { bytesWritten } = await handle.writev(after(all, done), done);
      if (bytesWritten === 0) throw new Error(`${file}: nothing written`);
      done += bytesWritten;
    }
  } catch (error) {
    await fsp.rm(file, { force: true });
    throw error;
  } finally {
    await handle.close();
  }
}

/**
 * Writes `taken`'s arrays to a new file `file` (0600) at once (a worker, where nothing else waits, or a few
 * MiB). A failed write leaves no file.
 */
export function writeBytesSync(file: string, taken: TakenBytes): void {
  const all = taken.arrays.map((a) => a.bytes);
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    for (let done = 0; done < taken.total; ) {
      const written = fs.writevSync(fd, after(all, done), done);
      if (written === 0) throw new Error(`${file}: nothing written`);
      done += written;
    }
  } catch (error) {
    fs.rmSync(file, { force: true });
    throw error;
  } finally {
    fs.closeSync(fd);
  }
}

const totalOf = (where: BytesInFile): number => where.arrays.reduce((n, a) => n + a.length, 0);

/** `value` with the arrays of `where` put back as Buffers over `data`, the file's bytes (no copy). */
function putBack(value: unknown, where: BytesInFile, data: Buffer): unknown {
  if (data.byteLength !== totalOf(where)) throw new Error(`${where.file} holds ${data.byteLength} bytes, not ${totalOf(where)}`);
  let offset = 0;
  let root = value;
  for (const { at, length } of where.arrays) {
    const bytes = data.subarray(offset, offset + length);
    offset += length;
    if (at.length === 0) {
      root = bytes;
      continue;
    }
    let parent = root as Record<string | number, unknown>;
    for (const key of at.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    Object.defineProperty(parent, at[at.length - 1] as string | number, {
      value: bytes,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return root;
}

/** Reads the file of `where` (past SYNC_MAX_BYTES off the event loop), removes it, and puts its arrays back into `value`. */
export async function readBytes(value: unknown, where: BytesInFile): Promise<unknown> {
  const total = totalOf(where);
  if (total <= SYNC_MAX_BYTES) return readBytesSync(value, where);
  const data = Buffer.allocUnsafe(total);
  const handle = await fsp.open(where.file, 'r');
  try {
    let done = 0;
    while (done < total) {
      const { bytesRead } = await handle.read(data, done, total - done, done);
      if (bytesRead === 0) throw new Error(`${where.file} ended after ${done} of ${total} bytes`);
      done += bytesRead;
    }
  } finally {
    await handle.close();
    await fsp.rm(where.file, { force: true });
  }
  return putBack(value, where, data);
}

/** Reads the file of `where` at once, removes it, and puts its arrays back into `value`. */
export function readBytesSync(value: unknown, where: BytesInFile): unknown {
  const data = fs.readFileSync(where.file);
  fs.rmSync(where.file, { force: true });
  return putBack(value, where, data);
}
