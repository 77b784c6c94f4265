/**
 * The `multipart/form-data` body of an assembly whose parts name files (`{"file": "terms.pdf"}`): a `body`
 * field holding the JSON request, then each file as a `files` field whose filename is the name the parts
 * use, typed application/pdf. It is what `curl -F 'body=…' -F 'files=@terms.pdf;type=application/pdf'`
 * sends, boundary aside. The files are Blobs, so fetch streams them as it sends (a file on disk is read
 * from disk, never held whole nor turned into base64), and can send them again when a 429 or 503 is retried.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';

/**
 * A PDF sent beside the body: its bytes (a Buffer is a Uint8Array), a Blob, or `{ path }`, a file on disk
 * read as it is sent.
 */
export type AssembleFile = Uint8Array | Blob | { path: string };

/** The files of a request, by the name its parts give them (`{"file": "terms.pdf"}` → `'terms.pdf'`). */
export type AssembleFiles = Readonly<Record<string, AssembleFile>>;

const PDF = 'application/pdf';

/** The file as a Blob typed application/pdf (a file on disk stays on disk until it is sent). */
async function blobOf(name: string, file: AssembleFile): Promise<Blob> {
  if (file instanceof Blob) return file.type === PDF ? file : new Blob([file], { type: PDF });
  // The Blob copies the bytes, whatever buffer holds them (the DOM types ask for an ArrayBuffer's).
  if (file instanceof Uint8Array) return new Blob([file as Uint8Array<ArrayBuffer>], { type: PDF });
  if (file !== null && typeof file === 'object' && typeof file.path === 'string') {
    // Node's own refusal says only "Unable to open file as blob": the stat names the file and the reason (ENOENT…).
    if (!(await fsp.stat(file.path)).isFile()) throw new TypeError(`files[${JSON.stringify(name)}]: ${file.path} is not a file`);
    return fs.openAsBlob(file.path, { type: PDF });
  }
  throw new TypeError(`files[${JSON.stringify(name)}]: give a Buffer, a Uint8Array, a Blob or { path }`);
}

/**
 * The form of `request` and `files`; a TypeError for a name a form cannot carry as it is (a quote or a line
 * break would be escaped on the wire, and the parts would no longer find the file by it) or a file that
 * cannot be read.
 */
export async function assembleForm(request: unknown, files: AssembleFiles): Promise<FormData> {
  const form = new FormData();
  form.append('body', JSON.stringify(request));
  for (const [name, file] of Object.entries(files)) {
    if (name === '' || /["\r\n]/.test(name))
      throw new TypeError(`files[${JSON.stringify(name)}]: a file name must be non-empty, without quotes or line breaks`);
    form.append('files', await blobOf(name, file), name);
  }
  return form;
}

/**
 * What a request that sends a form adds to fetch's init. Fetch keeps a copy of a body it may have to send
 * again after a redirect (its clone of the request tees the body), and by the time the form is sent that
 * copy holds all of it: a 128 MiB file had 135 MB live. With redirects refused (an API call is not
 * redirected; a proxy that does so gets a NETWORK_ERROR) and no window, fetch sends the one stream, and
 * 5.5 MB was live (test/client/upload-memory.test.ts).
 */
export const FORM_FETCH_INIT = { redirect: 'error', window: null } as const;
