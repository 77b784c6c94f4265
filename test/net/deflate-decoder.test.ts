/**
 * The `deflate` decoder on its own: the first two bytes may come in separate chunks, a body may be empty,
 * and damaged data fails with zlib's error, which the fetch reports as a body that could not be decompressed.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deflateDecoder } from '../../src/net/deflate-decoder.js';

/** What the decoder makes of `body` sent one byte at a time. */
async function decodeBytewise(body: Buffer): Promise<string> {
  const out: Buffer[] = [];
  await pipeline(
    Readable.from([...body].map((b) => Buffer.from([b]))),
    deflateDecoder(),
    async (decoded: AsyncIterable<Buffer>) => {
      for await (const chunk of decoded) out.push(chunk);
    },
  );
  return Buffer.concat(out).toString('utf8');
}

describe('deflate decoder', () => {
  const page = '<title>Déjà vu</title>'.repeat(50);

  it('reads zlib-wrapped, raw and gzip data, a byte at a time', async () => {
    expect(await decodeBytewise(zlib.deflateSync(page))).toBe(page);
    expect(await decodeBytewise(zlib.deflateRawSync(page))).toBe(page);
    expect(await decodeBytewise(zlib.gzipSync(page))).toBe(page);
  });

  it('an empty body is an empty page; damaged data fails with a zlib error', async () => {
    expect(await decodeBytewise(Buffer.alloc(0))).toBe('');
    await expect(decodeBytewise(Buffer.from([0x78, 0x9c, 0xff, 0xff, 0xff]))).rejects.toMatchObject({
      code: expect.stringMatching(/^Z_/),
    });
  });
});
