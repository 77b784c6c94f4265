/**
 * POST /v1/assemble as `multipart/form-data`: a `body` field holding the JSON request, and files the parts
 * name (`{"file": "terms.pdf"}`). The body is read as it arrives: each file is written to a temporary
 * directory of the request's as its bytes come, never held whole in memory or as base64, and the whole
 * body is bounded as a JSON body is (MAX_ASSEMBLE_BODY_BYTES). The reader is a small state machine over
 * the chunks (RFC 7578): it looks for the boundary with Buffer.indexOf, keeps at most a delimiter's
 * length of bytes between chunks, and bounds each part's headers.
 */
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { invalid, RenderError } from '../errors.js';
import { scratchDir } from '../scratch-dirs.js';

/** The files of a multipart request, by the name a part gives (`{"file": "terms.pdf"}`), and where they are. */
export interface Uploads {
  dir: string;
  /**
   * `sha256`: hex digest of the file's bytes, from the reader (a job's Idempotency-Key is bound to its files too);
   * `pdf`: whether `%PDF-` stands in its first KiB, where a PDF reader looks for it.
   */
  files: Map<string, { path: string; bytes: number; sha256?: string; pdf?: boolean }>;
}

/** What the multipart reader makes of a request: the JSON of its `body` field, and its files. */
export interface MultipartAssemble {
  json: string;
  uploads: Uploads;
}

const MAX_HEADER_BYTES = 16 * 1024;
/** Most files in one request: as many as a sync assembly has parts, with room for a few unused. */
export const MAX_UPLOAD_FILES = 200;

/** The boundary of a `multipart/form-data` content type; INVALID_REQUEST when there is none. */
function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw invalid('body: a multipart/form-data body needs a boundary in its Content-Type');
  return boundary;
}

/** A Content-Disposition parameter (`name`, `filename`), quoted or not. */
function param(disposition: string, key: string): string | undefined {
  const match = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.){0,1000})"|([^;\\s]{1,1000}))`, 'i').exec(disposition);
  const value = match?.[1] ?? match?.[2];
  return value?.replace(/\\(.)/g, '$1');
}

/** One part being read: a field held as text, or a file being written. */
type Sink =
  | { kind: 'body'; chunks: Buffer[] }
  | { kind: 'file'; name: string; path: string; out: fs.WriteStream; bytes: number; hash: crypto.Hash; head: Buffer[] };

/** Where a PDF reader looks for `%PDF-` (read-part.ts looks in the same KiB). */
const PDF_HEADER_WITHIN = 1024;

/**
 * Reads a multipart assemble request from `stream`, files to a new temporary directory (removed again
 * when reading fails; otherwise the caller removes it with `removeUploads`). `maxBytes` bounds the whole body.
 */
export async function readMultipartAssemble(stream: Readable, contentType: string, maxBytes: number): Promise<MultipartAssemble> {
  const boundary = boundaryOf(contentType);
  const dir = await scratchDir('upload');
  const uploads: Uploads = { dir, files: new Map() };
  let json: string | undefined;
  let sink: Sink | undefined;
  const finishPart = async (): Promise<void> => {
    if (!sink) return;
    const done = sink;
    sink = undefined;
    if (done.kind === 'body') {
      if (json !== undefined) throw invalid('body: the form has two "body" fields');
      json = Buffer.concat(done.chunks).toString('utf8');
      return;
    }
    done.out.end();
    await once(done.out, 'close');
    const head = Buffer.concat(done.head).subarray(0, PDF_HEADER_WITHIN);
    uploads.files.set(done.name, {
      path: done.path,
      bytes: done.bytes,
      sha256: done.hash.digest('hex'),
      pdf: head.indexOf('%PDF-') >= 0,
    });
  };
  const write = async (data: Buffer): Promise<void> => {
    if (!sink || data.length === 0) return;
    if (sink.kind === 'body') sink.chunks.push(data);
    else {
      if (sink.bytes < PDF_HEADER_WITHIN) sink.head.push(data.subarray(0, PDF_HEADER_WITHIN - sink.bytes));
      sink.bytes += data.length;
      sink.hash.update(data);
      if (!sink.out.write(data)) await once(sink.out, 'drain');
    }
  };
  const startPart = async (headers: string): Promise<void> => {
    const disposition = /^content-disposition:\s*(.*)$/im.exec(headers)?.[1] ?? '';
    const field = param(disposition, 'name');
    const filename = param(disposition, 'filename');
    if (!/^form-data\b/i.test(disposition) || field === undefined)
      throw invalid('body: each part of the form needs Content-Disposition: form-data; name="…"');
    // `body` is the request whether it comes as a field or as a file: `curl -F body=@body.json` sends it
    // as a file named body.json, and a JSON request is no PDF a part could name.
    if (field === 'body') {
      sink = { kind: 'body', chunks: [] };
      return;
    }
    if (filename === undefined)
      throw invalid(
        `body: the form field "${field.slice(0, 60)}" is not a file (it has no file name) and not "body": send each PDF as a file, whose file name the parts give (curl -F 'files=@terms.pdf')`,
      );
    const name = filename || field;
    if (uploads.files.has(name)) throw invalid(`body: the file "${name.slice(0, 100)}" is uploaded twice`);
    if (uploads.files.size >= MAX_UPLOAD_FILES)
      throw invalid(`body: more than ${MAX_UPLOAD_FILES} files is more than the limit of ${MAX_UPLOAD_FILES}`);
    const file = path.join(dir, `upload-${uploads.files.size + 1}.pdf`);
    // Taken at once: a second file of the same name is refused above, before anything is written.
    uploads.files.set(name, { path: file, bytes: 0 });
    const out = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
    sink = { kind: 'file', name, path: file, out, bytes: 0, hash: crypto.createHash('sha256'), head: [] };
  };

  const first = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let state: 'preamble' | 'headers' | 'body' | 'after' | 'done' = 'preamble';
  let pending: Buffer = Buffer.alloc(0);
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) throw new RenderError('PAYLOAD_TOO_LARGE', `body: more than the limit of ${maxBytes} bytes`);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (let progress = true; progress && state !== 'done'; ) {
        progress = false;
        if (state === 'preamble') {
          const at = pending.indexOf(first);
          if (at < 0) {
            pending = pending.subarray(Math.max(0, pending.length - first.length));
            break;
          }
          pending = pending.subarray(at + first.length);
          state = 'after';
          progress = true;
        } else if (state === 'after') {
          if (pending.length < 2) break;
          const two = pending.toString('latin1', 0, 2);
          if (two === '--') {
            state = 'done';
            break;
          }
          if (two !== '\r\n') throw invalid('body: a multipart delimiter is not followed by a line break');
          pending = pending.subarray(2);
          state = 'headers';
          progress = true;
        } else if (state === 'headers') {
          const end = pending.indexOf('\r\n\r\n');
          if (end < 0) {
            if (pending.length > MAX_HEADER_BYTES)
              throw invalid(`body: a part's headers are longer than ${MAX_HEADER_BYTES} bytes`);
            break;
          }
          await startPart(pending.toString('utf8', 0, end));
          pending = pending.subarray(end + 4);
          state = 'body';
          progress = true;
        } else {
          const at = pending.indexOf(delimiter);
          if (at < 0) {
            // Everything but what could be the start of a delimiter goes to the part now.
            const keep = Math.min(pending.length, delimiter.length - 1);
            await write(pending.subarray(0, pending.length - keep));
            pending = Buffer.from(pending.subarray(pending.length - keep));
            break;
          }
          await write(pending.subarray(0, at));
          await finishPart();
          pending = pending.subarray(at + delimiter.length);
          state = 'after';
          progress = true;
        }
      }
    }
    if (state !== 'done') throw invalid('body: the multipart body ends before its closing boundary');
    if (json === undefined) throw invalid('body: the form has no "body" field holding the JSON request');
    return { json, uploads };
  } catch (err) {
    if (sink?.kind === 'file') sink.out.destroy();
    await removeUploads(uploads);
    throw err;
  }
}

/** Removes a request's uploaded files. */
export async function removeUploads(uploads: Uploads): Promise<void> {
  await fsp.rm(uploads.dir, { recursive: true, force: true });
}
