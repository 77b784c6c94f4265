/**
 * The strict validator of an assemble request (POST /v1/assemble, and an assembly job's body), whose
 * messages name the part (`parts[2].options.scale: …`); the schema (schema.ts) is the contract it must
 * agree with. An HTML part is checked by the render request's own validator, so its rules and words
 * are the render's.
 */

import { TypeCompiler } from '@sinclair/typebox/compiler';
import { charactersOver } from '../accounts/user-text.js';
import { quoted } from '../cut-text.js';
import { invalid, RenderError } from '../errors.js';
import { toPrintParams, validateRenderRequest } from '../render/index.js';
import {
  type AssembleRequest,
  AssembleRequestSchema,
  FINISHING_FIELDS,
  MAX_FILE_NAME,
  MAX_PART_URL_LENGTH,
  partLabel,
  UPLOADED_NAMES,
  UPLOADS_NOT_PDF,
} from './schema.js';
import { checkMetadata, checkPartFinishing, checkProtect, checkSign, checkSplit, checkStamps } from './validate-finishing.js';
import { isObject, show, unknownField } from './validate-values.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const KINDS = ['html', 'pdf', 'url', 'file'] as const;

function checkPdfData(data: unknown, label: string): void {
  if (typeof data !== 'string') throw invalid(`${label}.pdf: must be a base64 string, got ${show(data)}`);
  if (data === '') throw invalid(`${label}.pdf: must not be empty`);
  if (data.length % 4 === 1 || !BASE64.test(data)) throw invalid(`${label}.pdf: not base64 (standard alphabet A–Z a–z 0–9 + /)`);
  // The first bytes say whether it is a PDF at all; decoding them alone keeps a refusal cheap.
  const head = Buffer.from(data.slice(0, 8), 'base64').toString('latin1');
  if (!head.startsWith('%PDF-')) throw invalid(`${label}: not a PDF (its data does not start with %PDF-)`);
}

function checkUrl(url: unknown, label: string): void {
  if (typeof url !== 'string' || url === '') throw invalid(`${label}.url: must be an http(s) URL string, got ${show(url)}`);
  const urlLength = charactersOver(url, MAX_PART_URL_LENGTH);
  if (urlLength !== undefined)
    throw invalid(`${label}.url: ${urlLength} characters is more than the limit of ${MAX_PART_URL_LENGTH}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`${label}.url: not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid(`${label}.url: must be http:// or https://`);
}

/** The render validator's message for an HTML part, named by the part (`parts[1].options.format: …`). */
function checkHtmlPart(part: Record<string, unknown>, label: string): void {
  const { html, options } = part;
  try {
    validateRenderRequest(options === undefined ? { html } : { html, options });
    toPrintParams(options as Parameters<typeof toPrintParams>[0]);
  } catch (err) {
    if (err instanceof RenderError) throw new RenderError(err.code, `${label}.${err.message}`, err.retryAfterS);
    throw err;
  }
}

function checkFile(file: unknown, label: string, uploaded: Uploaded): void {
  if (typeof file !== 'string' || file === '')
    throw invalid(`${label}.file: must be the name of an uploaded file, got ${show(file)}`);
  const fileLength = charactersOver(file, MAX_FILE_NAME);
  if (fileLength !== undefined)
    throw invalid(`${label}.file: ${fileLength} characters is more than the limit of ${MAX_FILE_NAME}`);
  if (!uploaded.names)
    throw invalid(`${label}.file: a file part needs a multipart/form-data request with the file uploaded beside the body`);
  const names = uploaded.names;
  if (!names.has(file))
    throw invalid(
      `${label}.file: ${JSON.stringify(file)} is not among the uploaded files (${
        [...names]
          .slice(0, 10)
          .map((n) => JSON.stringify(n))
          .join(', ') || 'none'
      })`,
    );
  // Refused before any part is rendered, in the words the merge would use an hour later in a job.
  if (uploaded.notPdf?.has(file)) throw invalid(`${label}: not a PDF (the file ${quoted(file)} does not start with %PDF-)`);
}

/**
 * Each uploaded file must be a part's: one that no part names would be left out of the answer unseen (a
 * part forgotten in the body), and a job would keep its bytes for nothing until it ends.
 */
function checkEveryUploadNamed(parts: unknown[], names: ReadonlySet<string>): void {
  const named = new Set(parts.map((part) => (isObject(part) ? part.file : undefined)));
  const unnamed = [...names].filter((name) => !named.has(name));
  if (unnamed.length === 0) return;
  const listed = unnamed
    .slice(0, 10)
    .map((name) => quoted(name))
    .join(', ');
  const [is, it] = unnamed.length === 1 ? ['is', 'it'] : ['are', 'them'];
  throw invalid(
    `files: ${listed}${unnamed.length > 10 ? ', …' : ''} ${is} uploaded but no part names ${it}: ` +
      `add a part such as {"file": ${quoted(unnamed[0])}}, or leave ${it} out of the form`,
  );
}

/** A multipart request's files as the validator sees them: their names, and which of them are not PDFs. */
interface Uploaded {
  names?: ReadonlySet<string>;
  notPdf?: ReadonlySet<string>;
}

function checkPart(part: unknown, index: number, uploaded: Uploaded): void {
  const label = partLabel(index);
  if (!isObject(part)) throw invalid(`${label}: must be a JSON object {"html"}, {"pdf"} or {"url"}, got ${show(part)}`);
  const given = KINDS.filter((k) => k in part);
  if (given.length !== 1) {
    throw invalid(
      given.length === 0
        ? `${label}: give one of html, pdf, url or file`
        : `${label}: give one of html, pdf, url or file, not ${given.join(' and ')}`,
    );
  }
  const kind = given[0];
  unknownField(part, [...(kind === 'html' ? ['html', 'options'] : [kind]), ...FINISHING_FIELDS], `${label}.`);
  if (kind === 'html') checkHtmlPart(part, label);
  else if (kind === 'pdf') checkPdfData(part.pdf, label);
  else if (kind === 'url') checkUrl(part.url, label);
  else checkFile(part.file, label, uploaded);
  checkPartFinishing(part, label);
}

/**
 * A copy of a schema whose string bounds are in UTF-16 units, as TypeBox counts them: JSON Schema's maxLength
 * (and the checks above) count characters, and `max` characters take at most twice as many units. The
 * copy keeps TypeBox's symbol keys, which the compiler reads.
 */
function inUtf16Units<T>(node: T): T {
  if (Array.isArray(node)) return node.map(inUtf16Units) as T;
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<PropertyKey, unknown> = {};
  for (const key of Reflect.ownKeys(node)) copy[key] = inUtf16Units((node as Record<PropertyKey, unknown>)[key]);
  if (typeof copy.maxLength === 'number') copy.maxLength *= 2;
  return copy as T;
}

const compiled = TypeCompiler.Compile(inUtf16Units(AssembleRequestSchema));

/**
 * Validates an assemble body with at most `maxParts` parts; throws INVALID_REQUEST (or PAYLOAD_TOO_LARGE
 * for an HTML part over 10 MiB) naming the field and the part. `limitName` names the limit in the message.
 */
export function validateAssembleRequest(body: unknown, maxParts: number, limitName = 'ASSEMBLE_MAX_PARTS'): AssembleRequest {
  if (!isObject(body)) throw invalid(`body: must be a JSON object {"parts": [...]}, got ${show(body)}`);
  unknownField(body, ['parts', 'stamps', 'metadata', 'split', 'protect', 'sign'], '');
  const { parts } = body;
  if (parts === undefined) throw invalid('parts: required, an array of {"html"}, {"pdf"} or {"url"} parts');
  if (!Array.isArray(parts)) throw invalid(`parts: must be an array, got ${show(parts)}`);
  if (parts.length === 0) throw invalid('parts: must not be empty (give at least one part)');
  if (parts.length > maxParts) {
    throw invalid(`parts: ${parts.length} parts is more than the limit of ${maxParts} (${limitName})`);
  }
  const carried = body as { [UPLOADED_NAMES]?: ReadonlySet<string>; [UPLOADS_NOT_PDF]?: ReadonlySet<string> };
  const uploaded: Uploaded = { names: carried[UPLOADED_NAMES], notPdf: carried[UPLOADS_NOT_PDF] };
  for (const [i, part] of parts.entries()) checkPart(part, i, uploaded);
  if (uploaded.names) checkEveryUploadNamed(parts, uploaded.names);
  if (body.stamps !== undefined) checkStamps(body.stamps);
  if (body.metadata !== undefined) checkMetadata(body.metadata);
  if (body.split !== undefined) checkSplit(body.split);
  if (body.protect !== undefined) checkProtect(body.protect);
  if (body.sign !== undefined) checkSign(body.sign);
  // The hand-written checks above give the messages; the schema is the contract they must agree with.
  if (!compiled.Check(body)) {
    const first = compiled.Errors(body).First();
    throw invalid(
      `${first ? first.path.slice(1).split('/').join('.') : 'body'}: ${first?.message ?? 'not a valid assemble request'}`,
    );
  }
  return body;
}
