/**
 * The strict validator of an assemble request (POST /v1/assemble, and an assembly job's body), whose
 * messages name the part (`parts[2].options.scale: …`); the schema (schema.ts) is the contract it must
 * agree with. An HTML part is checked by the render request's own validator, so its rules and words
 * are the render's.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { RenderError } from '../errors.js';
import { isLanguageTag, PageSelectionError, parsePageSelection } from '../pdf/index.js';
import { toPrintParams, validateRenderRequest } from '../render/index.js';
import {
  type AssembleRequest,
  AssembleRequestSchema,
  FINISHING_FIELDS,
  MAX_FILE_NAME,
  MAX_METADATA_TEXT,
  MAX_PART_URL_LENGTH,
  MAX_SPLIT_RANGES,
  MAX_STAMP_HTML,
  MAX_STAMPS,
  MAX_TEXT,
  MAX_TITLE,
  METADATA_FIELDS,
  PERMISSIONS,
  partLabel,
  ROTATIONS,
  UPLOADED_NAMES,
  UPLOADS_NOT_PDF,
} from './schema.js';

const invalid = (message: string) => new RenderError('INVALID_REQUEST', message);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const KINDS = ['html', 'pdf', 'url', 'file'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 60)}`;
}

function unknownField(object: Record<string, unknown>, known: readonly string[], at: string): void {
  const extra = Object.keys(object).find((k) => !known.includes(k));
  if (extra !== undefined) throw invalid(`${at}${extra}: unknown field`);
}

function optionalText(object: Record<string, unknown>, name: string, at: string, required = false): void {
  const value = object[name];
  if (value === undefined) {
    if (required) throw invalid(`${at}${name}: required`);
    return;
  }
  if (typeof value !== 'string') throw invalid(`${at}${name}: must be a string, got ${show(value)}`);
  if (required && value === '') throw invalid(`${at}${name}: must not be empty`);
  if (value.length > MAX_TEXT) throw invalid(`${at}${name}: ${value.length} characters is more than the limit of ${MAX_TEXT}`);
}

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
  if (url.length > MAX_PART_URL_LENGTH)
    throw invalid(`${label}.url: ${url.length} characters is more than the limit of ${MAX_PART_URL_LENGTH}`);
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
  if (file.length > MAX_FILE_NAME)
    throw invalid(`${label}.file: ${file.length} characters is more than the limit of ${MAX_FILE_NAME}`);
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
  if (uploaded.notPdf?.has(file))
    throw invalid(`${label}: not a PDF (the file ${JSON.stringify(file)} does not start with %PDF-)`);
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
    .map((name) => JSON.stringify(name.slice(0, 100)))
    .join(', ');
  const [is, it] = unnamed.length === 1 ? ['is', 'it'] : ['are', 'them'];
  throw invalid(
    `files: ${listed}${unnamed.length > 10 ? ', …' : ''} ${is} uploaded but no part names ${it}: ` +
      `add a part such as {"file": ${JSON.stringify(unnamed[0].slice(0, 100))}}, or leave ${it} out of the form`,
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

function checkPartFinishing(part: Record<string, unknown>, label: string): void {
  const { title, pages, rotate } = part;
  if (title !== undefined) {
    if (typeof title !== 'string') throw invalid(`${label}.title: must be a string, got ${show(title)}`);
    if (title.length > MAX_TITLE)
      throw invalid(`${label}.title: ${title.length} characters is more than the limit of ${MAX_TITLE}`);
  }
  if (pages !== undefined) {
    if (typeof pages !== 'string') throw invalid(`${label}.pages: must be a string such as "1-3,5", got ${show(pages)}`);
    checkSelection(pages, `${label}.pages`);
  }
  if (rotate !== undefined && !(ROTATIONS as readonly unknown[]).includes(rotate))
    throw invalid(`${label}.rotate: ${show(rotate)} is not a rotation (${ROTATIONS.join(', ')} degrees clockwise)`);
}

/** A page selection's text, checked before any page is known (the pages it names are checked against the part). */
export function checkSelection(text: string, field: string): void {
  try {
    parsePageSelection(text, field);
  } catch (err) {
    if (err instanceof PageSelectionError) throw invalid(err.message);
    throw err;
  }
}

function checkProtect(protect: unknown): void {
  if (!isObject(protect)) throw invalid(`protect: must be a JSON object, got ${show(protect)}`);
  unknownField(protect, ['user_password', 'owner_password', 'allow'], 'protect.');
  optionalText(protect, 'owner_password', 'protect.', true);
  optionalText(protect, 'user_password', 'protect.');
  // The encryption refuses these (protect-pdf.ts), and only after every part was rendered: say so first.
  for (const name of ['owner_password', 'user_password'])
    if (typeof protect[name] === 'string' && /[\r\n\0]/.test(protect[name]))
      throw invalid(`protect.${name}: must not contain a line break or NUL`);
  const { allow } = protect;
  if (allow === undefined) return;
  if (!Array.isArray(allow)) throw invalid(`protect.allow: must be an array of ${PERMISSIONS.join(', ')}`);
  allow.forEach((p, i) => {
    if (typeof p !== 'string' || !(PERMISSIONS as readonly string[]).includes(p))
      throw invalid(`protect.allow[${i}]: ${show(p)} is not a permission (${PERMISSIONS.join(', ')})`);
    if (allow.indexOf(p) !== i) throw invalid(`protect.allow[${i}]: "${p}" is given twice`);
  });
}

function checkMetadata(metadata: unknown): void {
  if (!isObject(metadata)) throw invalid(`metadata: must be a JSON object, got ${show(metadata)}`);
  unknownField(metadata, METADATA_FIELDS, 'metadata.');
  for (const field of METADATA_FIELDS) {
    const value = metadata[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalid(`metadata.${field}: must be a string, got ${show(value)}`);
    if (value.length > MAX_METADATA_TEXT)
      throw invalid(`metadata.${field}: ${value.length} characters is more than the limit of ${MAX_METADATA_TEXT}`);
  }
  const { lang } = metadata;
  if (typeof lang === 'string' && (lang.length > 64 || !isLanguageTag(lang)))
    throw invalid(`metadata.lang: ${JSON.stringify(lang.slice(0, 64))} is not a BCP 47 language tag (en, de-CH, zh-Hant)`);
}

function checkStamps(stamps: unknown): void {
  if (!Array.isArray(stamps)) throw invalid(`stamps: must be an array of {"html", "pages"?, "layer"?}, got ${show(stamps)}`);
  if (stamps.length > MAX_STAMPS) throw invalid(`stamps: ${stamps.length} stamps is more than the limit of ${MAX_STAMPS}`);
  stamps.forEach((stamp, i) => {
    const at = `stamps[${i}]`;
    if (!isObject(stamp)) throw invalid(`${at}: must be a JSON object {"html", "pages"?, "layer"?}, got ${show(stamp)}`);
    unknownField(stamp, ['html', 'pages', 'layer'], `${at}.`);
    const { html, pages, layer } = stamp;
    if (typeof html !== 'string' || html === '') throw invalid(`${at}.html: must be a non-empty string, got ${show(html)}`);
    if (html.length > MAX_STAMP_HTML)
      throw invalid(`${at}.html: ${html.length} characters is more than the limit of ${MAX_STAMP_HTML}`);
    if (pages !== undefined) {
      if (typeof pages !== 'string') throw invalid(`${at}.pages: must be a string such as "2-", got ${show(pages)}`);
      checkSelection(pages, `${at}.pages`);
    }
    if (layer !== undefined && layer !== 'over' && layer !== 'under')
      throw invalid(`${at}.layer: ${show(layer)} is not a layer ("over" or "under")`);
  });
}

function checkSplit(split: unknown): void {
  const kinds = '"parts", {"every": N} or {"ranges": ["1-3", "4-"]}';
  if (split === 'parts') return;
  if (!isObject(split)) throw invalid(`split: must be ${kinds}, got ${show(split)}`);
  const keys = Object.keys(split);
  if (keys.length !== 1 || (keys[0] !== 'every' && keys[0] !== 'ranges'))
    throw invalid(`split: must be ${kinds}, got an object with ${keys.join(', ') || 'no fields'}`);
  if ('every' in split) {
    const { every } = split;
    if (typeof every !== 'number' || !Number.isInteger(every) || every < 1)
      throw invalid(`split.every: must be a whole number of pages of at least 1, got ${show(every)}`);
    return;
  }
  const { ranges } = split;
  if (!Array.isArray(ranges) || ranges.length === 0) throw invalid('split.ranges: must be a non-empty array of page selections');
  if (ranges.length > MAX_SPLIT_RANGES)
    throw invalid(`split.ranges: ${ranges.length} ranges is more than the limit of ${MAX_SPLIT_RANGES}`);
  ranges.forEach((range, i) => {
    if (typeof range !== 'string') throw invalid(`split.ranges[${i}]: must be a string such as "1-3", got ${show(range)}`);
    checkSelection(range, `split.ranges[${i}]`);
  });
}

function checkSign(sign: unknown): void {
  if (!isObject(sign)) throw invalid(`sign: must be a JSON object, got ${show(sign)}`);
  unknownField(sign, ['certificate', 'reason', 'location', 'contact'], 'sign.');
  const { certificate } = sign;
  if (certificate === undefined) throw invalid('sign.certificate: required, the id of a certificate (crt_…)');
  if (typeof certificate !== 'string' || !/^crt_[0-9a-z]+$/.test(certificate))
    throw invalid(`sign.certificate: ${show(certificate)} is not a certificate id (crt_…)`);
  for (const name of ['reason', 'location', 'contact']) optionalText(sign, name, 'sign.');
}

const compiled = TypeCompiler.Compile(AssembleRequestSchema);

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
