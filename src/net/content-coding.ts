/**
 * A response body in its content codings (`Content-Encoding: gzip`, `br`, `deflate`, several in a row),
 * decoded as browsers decode it and handed on chunk by chunk as it inflates, so a reader that stops at a
 * size cap stops a gzip or brotli bomb with flat memory. Used by every fetch that reads a body: the
 * metadata service's page, an assembly's `url` part.
 */
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { deflateDecoder } from './deflate-decoder.js';
import type { PushBody } from './pinned-agent.js';

/** What a fetch that decodes asks for. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** A content coding this module does not read (`zstd`, `compress`, a made-up one). */
export class UnsupportedCoding extends Error {
  constructor(readonly coding: string) {
    super(`unsupported content coding "${coding}"`);
  }
}

/** The content codings of a response, in the order they were applied; identity dropped. */
export function contentCodings(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const value = Array.isArray(header) ? header.join(',') : header;
  return value
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** A decoder for one content coding; a cut-short body gives what it holds. */
function decoder(coding: string): Transform {
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  if (coding === 'br') return zlib.createBrotliDecompress();
  if (coding === 'deflate') return deflateDecoder();
  throw new UnsupportedCoding(coding);
}

/**
 * Feeds `body`, decoded from `codings` (undone in reverse order), to `take` chunk by chunk; `take` returns
 * true when it wants no more, and what it throws ends the read with that error. Resolves when the body or
 * the reader is done; rejects with UnsupportedCoding, a zlib error (its code starts with `Z_`), or the
 * transport's. The body is dropped with its connection when the read ends early.
 */
export function readDecoded(body: PushBody, codings: readonly string[], take: (chunk: Buffer) => boolean): Promise<void> {
  const chain = [...codings].reverse().map(decoder);
  const first = chain[0];
  if (first === undefined) throw new Error('readDecoded: no content coding to decode');
  // pipe() returns its destination: this pipes each decoder into the next and yields the last one.
  const last = chain.reduce((from, to) => from.pipe(to));
  return new Promise<void>((resolve, reject) => {
    let over = false;
    const stop = (err?: unknown): void => {
      if (over) return;
      over = true;
      body.destroy();
      for (const z of chain) z.destroy();
      if (err) reject(err);
      else resolve();
    };
    last.on('data', (chunk: Buffer) => {
      if (over) return;
      try {
        if (take(chunk)) stop();
      } catch (err) {
        stop(err);
      }
    });
    last.on('end', () => stop());
    for (const z of chain) z.on('error', stop);
    first.on('drain', () => body.resume());
    body
      .read((chunk) => {
        if (!first.write(chunk)) body.pause();
      })
      .then(() => over || first.end(), stop);
  });
}
