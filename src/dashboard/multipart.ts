/**
 * A small multipart/form-data reader for the one dashboard form that uploads a file (the signing
 * certificate page): a file input needs multipart to work without JavaScript, and the whole body is a
 * few fields and one file of at most 64 KiB, so a bounded buffer and a split on the boundary suffice.
 */
import type { FastifyInstance } from 'fastify';

/** A file part of a multipart form. */
export interface UploadedFile {
  filename: string;
  data: Buffer;
}

/** What a multipart form body becomes: text fields as strings (so `field()` reads them), files apart. */
export type MultipartBody = Record<string, string | UploadedFile>;

/** Thrown for a body that is not the multipart form it says it is. */
export class MultipartError extends Error {}

function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw new MultipartError('multipart body without a boundary');
  return boundary;
}

function dispositionParam(disposition: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}="([^"]*)"`, 'i').exec(disposition);
  return match?.[1];
}

/** Parses a multipart/form-data body; a repeated field name keeps only the first value. */
export function parseMultipart(body: Buffer, contentType: string): MultipartBody {
  const delimiter = Buffer.from(`--${boundaryOf(contentType)}`);
  const result: MultipartBody = Object.create(null);
  let at = body.indexOf(delimiter);
  if (at === -1) throw new MultipartError('multipart body without its boundary');
  for (;;) {
    at += delimiter.length;
    // "--" after a delimiter closes the body.
    if (body.subarray(at, at + 2).toString('latin1') === '--') return result;
    if (body.subarray(at, at + 2).toString('latin1') !== '\r\n') throw new MultipartError('malformed multipart body');
    const headEnd = body.indexOf('\r\n\r\n', at + 2);
    if (headEnd === -1) throw new MultipartError('multipart part without headers');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headEnd + 4);
    if (next === -1) throw new MultipartError('multipart body not closed');
    const headers = body
      .subarray(at + 2, headEnd)
      .toString('utf8')
      .split('\r\n');
    const disposition = headers.find((h) => /^content-disposition:/i.test(h)) ?? '';
    const name = dispositionParam(disposition, 'name');
    const data = body.subarray(headEnd + 4, next);
    if (name !== undefined && !(name in result)) {
      const filename = dispositionParam(disposition, 'filename');
      result[name] = filename === undefined ? data.toString('utf8') : { filename, data: Buffer.from(data) };
    }
    at = next + 2;
  }
}

/** Lets the routes of `scope` (an encapsulated plugin) take multipart/form-data bodies up to `limit` bytes. */
export function acceptMultipart(scope: FastifyInstance, limit: number): void {
  scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: limit }, (request, body, done) => {
    try {
      done(null, parseMultipart(body as Buffer, String(request.headers['content-type'] ?? '')));
    } catch (error) {
      const bad = error as Error & { statusCode?: number };
      bad.statusCode = 400;
      done(bad, undefined);
    }
  });
}
