/**
 * The finishing fields of an assemble request (a part's title, pages and rotation; the stamps, metadata,
 * split, protection and signature of the whole), checked before any part is rendered, with messages that
 * name the field.
 */
import { charactersOver } from '../accounts/user-text.js';
import { invalid } from '../errors.js';
import { isLanguageTag, PageSelectionError, parsePageSelection } from '../pdf/index.js';
import {
  MAX_METADATA_TEXT,
  MAX_SPLIT_RANGES,
  MAX_STAMP_HTML,
  MAX_STAMPS,
  MAX_TITLE,
  METADATA_FIELDS,
  PERMISSIONS,
  ROTATIONS,
} from './schema.js';
import { isObject, optionalText, show, unknownField } from './validate-values.js';

/** A part's own finishing: its `title`, `pages` and `rotate`. */
export function checkPartFinishing(part: Record<string, unknown>, label: string): void {
  const { title, pages, rotate } = part;
  if (title !== undefined) {
    if (typeof title !== 'string') throw invalid(`${label}.title: must be a string, got ${show(title)}`);
    const length = charactersOver(title, MAX_TITLE);
    if (length !== undefined) throw invalid(`${label}.title: ${length} characters is more than the limit of ${MAX_TITLE}`);
  }
  if (pages !== undefined) {
    if (typeof pages !== 'string') throw invalid(`${label}.pages: must be a string such as "1-3,5", got ${show(pages)}`);
    checkSelection(pages, `${label}.pages`);
  }
  if (rotate !== undefined && !(ROTATIONS as readonly unknown[]).includes(rotate))
    throw invalid(`${label}.rotate: ${show(rotate)} is not a rotation (${ROTATIONS.join(', ')} degrees clockwise)`);
}

/** A page selection's text, checked before any page is known (the pages it names are checked against the part). */
function checkSelection(text: string, field: string): void {
  try {
    parsePageSelection(text, field);
  } catch (err) {
    if (err instanceof PageSelectionError) throw invalid(err.message);
    throw err;
  }
}

/** `protect`: the passwords and the permissions. */
export function checkProtect(protect: unknown): void {
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

/** `metadata`: the assembly's Info and XMP values, and its language. */
export function checkMetadata(metadata: unknown): void {
  if (!isObject(metadata)) throw invalid(`metadata: must be a JSON object, got ${show(metadata)}`);
  unknownField(metadata, METADATA_FIELDS, 'metadata.');
  for (const field of METADATA_FIELDS) {
    const value = metadata[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalid(`metadata.${field}: must be a string, got ${show(value)}`);
    const length = charactersOver(value, MAX_METADATA_TEXT);
    if (length !== undefined)
      throw invalid(`metadata.${field}: ${length} characters is more than the limit of ${MAX_METADATA_TEXT}`);
  }
  const { lang } = metadata;
  if (typeof lang === 'string' && (lang.length > 64 || !isLanguageTag(lang)))
    throw invalid(`metadata.lang: ${JSON.stringify(lang.slice(0, 64))} is not a BCP 47 language tag (en, de-CH, zh-Hant)`);
}

/** `stamps`: each stamp's HTML, pages and layer. */
export function checkStamps(stamps: unknown): void {
  if (!Array.isArray(stamps)) throw invalid(`stamps: must be an array of {"html", "pages"?, "layer"?}, got ${show(stamps)}`);
  if (stamps.length > MAX_STAMPS) throw invalid(`stamps: ${stamps.length} stamps is more than the limit of ${MAX_STAMPS}`);
  stamps.forEach((stamp, i) => {
    const at = `stamps[${i}]`;
    if (!isObject(stamp)) throw invalid(`${at}: must be a JSON object {"html", "pages"?, "layer"?}, got ${show(stamp)}`);
    unknownField(stamp, ['html', 'pages', 'layer'], `${at}.`);
    const { html, pages, layer } = stamp;
    if (typeof html !== 'string' || html === '') throw invalid(`${at}.html: must be a non-empty string, got ${show(html)}`);
    const length = charactersOver(html, MAX_STAMP_HTML);
    if (length !== undefined) throw invalid(`${at}.html: ${length} characters is more than the limit of ${MAX_STAMP_HTML}`);
    if (pages !== undefined) {
      if (typeof pages !== 'string') throw invalid(`${at}.pages: must be a string such as "2-", got ${show(pages)}`);
      checkSelection(pages, `${at}.pages`);
    }
    if (layer !== undefined && layer !== 'over' && layer !== 'under')
      throw invalid(`${at}.layer: ${show(layer)} is not a layer ("over" or "under")`);
  });
}

/** `split`: by part, every N pages or page ranges. */
export function checkSplit(split: unknown): void {
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

/** `sign`: the certificate and the signature's texts. */
export function checkSign(sign: unknown): void {
  if (!isObject(sign)) throw invalid(`sign: must be a JSON object, got ${show(sign)}`);
  unknownField(sign, ['certificate', 'reason', 'location', 'contact'], 'sign.');
  const { certificate } = sign;
  if (certificate === undefined) throw invalid('sign.certificate: required, the id of a certificate (crt_…)');
  if (typeof certificate !== 'string' || !/^crt_[0-9a-z]+$/.test(certificate))
    throw invalid(`sign.certificate: ${show(certificate)} is not a certificate id (crt_…)`);
  for (const name of ['reason', 'location', 'contact']) optionalText(sign, name, 'sign.');
}
