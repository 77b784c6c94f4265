/**
 * `Content-Encoding: deflate` read as browsers read it. The coding is meant to be deflate data in a zlib
 * wrapper (RFC 9110, 8.4.1.2), but some servers send the raw deflate data alone; Chromium and Firefox show
 * both, telling them apart by the first two bytes, and so does this. A gzip member sent under this name is
 * read too.
 */
import { Transform } from 'node:stream';
import zlib from 'node:zlib';

/** A cut-short body gives what it holds: the extractor reads as far as the bytes go. */
const OPTIONS = { finishFlush: zlib.constants.Z_SYNC_FLUSH };

/** Whether two bytes open a zlib stream: method 8 (deflate), a window of at most 32 KiB, and the header check. */
function zlibHeader(b0: number, b1: number): boolean {
  return (b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0;
}

function inflaterFor(head: Buffer): Transform {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return zlib.createGunzip(OPTIONS);
  if (head.length >= 2 && zlibHeader(head[0], head[1])) return zlib.createInflate(OPTIONS);
  return zlib.createInflateRaw(OPTIONS);
}

/** A decompressor for `deflate` that picks zlib, raw deflate or gzip once its first two bytes are in. */
export function deflateDecoder(): Transform {
  let inner: Transform | undefined;
  let head = Buffer.alloc(0);
  const start = (outer: Transform): Transform => {
    const z = inflaterFor(head);
    z.on('data', (data: Buffer) => outer.push(data));
    z.on('error', (err) => outer.destroy(err));
    return z;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let data = chunk;
      if (!inner) {
        head = Buffer.concat([head, chunk]);
        if (head.length < 2) return done();
        inner = start(this);
        data = head;
      }
      // Called once zlib has taken the chunk in: the body is read no faster than it inflates.
      inner.write(data, (err) => done(err ?? undefined));
    },
    flush(done) {
      if (!inner) {
        if (head.length === 0) return done();
        inner = start(this);
        inner.write(head);
      }
      inner.once('end', () => done());
      inner.end();
    },
    destroy(err, done) {
      inner?.destroy();
      done(err);
    },
  });
}
