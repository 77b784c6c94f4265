/**
 * The metadata extractor's and encoding sniffer's fuzz properties, shared by `npm test` (fixed seed, a few
 * seconds) and `npm run bench -- fuzz` (random seeds, FUZZ_S): never throws, always the eight-field shape,
 * the same fields however the bytes are chunked, and a mutation fuzzer over the metadata corpus (the pages
 * written in test/fixtures, plus the saved real pages when PAGEWORKS_CORPUS_DIR is set).
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities';
import fc from 'fast-check';
import { parseContentType } from '../../src/metadata/content-type.js';
import {
  decodeDocument,
  encodingFromMetaAttributes,
  extractCharsetFromContent,
  resolveEncodingLabel,
  sniffBom,
} from '../../src/metadata/encoding.js';
import { extractMetadata } from '../../src/metadata/extract.js';
import { MetadataExtractor } from '../../src/metadata/metadata-extractor.js';
import { collapseWhitespace, decodeReferences } from '../../src/metadata/text.js';
import { METADATA_FIELDS, type Metadata } from '../../src/metadata/types.js';
import { metadataPages } from '../fixtures/corpus/index.js';
import { LEGACY_ENCODINGS } from './pathological.js';

/** Throws unless `m` is exactly the eight fields, in order, each a string or null. */
export function assertShape(m: Metadata): void {
  const keys = Object.keys(m);
  if (keys.join() !== METADATA_FIELDS.join()) throw new Error(`fields ${keys.join()} instead of the eight`);
  for (const field of METADATA_FIELDS) {
    const v = m[field];
    if (v !== null && typeof v !== 'string') throw new Error(`${field} is ${typeof v}`);
  }
}

/** Pushes `bytes` in pieces cut at `cuts` (fractions), stopping when the extractor says it is settled, as the fetcher does. */
export function extractChunked(bytes: Uint8Array, contentType: string | null, url: string, cuts: number[]): Metadata {
  const extractor = new MetadataExtractor(contentType, url);
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...at, bytes.length]) {
    if (to <= from) continue;
    if (extractor.push(Buffer.from(bytes.subarray(from, to)))) break;
    from = to;
  }
  return extractor.finish();
}

/** Pieces of markup that steer a scanner into its corners. */
const TOKENS = [
  '<title>',
  '</title>',
  '<meta charset="',
  '<meta charset=',
  'shift_jis',
  'utf-16',
  'gbk',
  '">',
  '>',
  '<',
  '</',
  '"',
  "'",
  '=',
  '<!--',
  '-->',
  '<!',
  '<?',
  '<script>',
  '</script>',
  '<style>',
  '</style>',
  '<textarea>',
  '<noscript>',
  '<svg>',
  '<math>',
  '<template>',
  '</head>',
  '<body>',
  '<frameset>',
  '<base href="',
  '<link rel="icon" href="',
  '<link rel=canonical href=',
  '<meta property="og:title" content="',
  '<meta name="description" content="',
  '<meta http-equiv="content-type" content="text/html; charset=',
  '&amp;',
  '&',
  '&#',
  '&#x',
  ';',
  '&notit;',
  ' ',
  '\t',
  '\n',
  '\r',
  '\0',
  'é',
  '€',
  '\uFEFF',
  '\uD800',
  'x',
  'javascript:',
  '//',
  '/../',
];

const contentTypes = fc.oneof(
  fc.constantFrom(
    null,
    '',
    'text/html',
    'application/xhtml+xml',
    'text/plain',
    'image/png',
    'text/html; charset=',
    'text/html; charset="utf-8"',
  ),
  fc.constantFrom(...LEGACY_ENCODINGS).map((e) => `text/html; charset=${e}`),
  fc.string({ maxLength: 60 }),
);
const urls = fc.constantFrom(
  'https://example.com/',
  'https://example.com/a/b?c=d#e',
  'http://127.0.0.1:8080/x',
  'https://xn--bcher-kva.example/ü',
);
/** Bytes: raw noise, markup-like token soup (encoded as UTF-8 or latin1), or both with a BOM in front. */
const documents = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc
    .array(fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 12 })), { maxLength: 300 })
    .chain((parts) =>
      fc.constantFrom('utf8', 'latin1', 'utf16le').map((enc) => Buffer.from(parts.join(''), enc as BufferEncoding)),
    ),
  fc
    .tuple(fc.constantFrom([0xef, 0xbb, 0xbf], [0xfe, 0xff], [0xff, 0xfe]), fc.uint8Array({ maxLength: 500 }))
    .map(([bom, rest]) => Buffer.concat([Buffer.from(bom), rest])),
);

/** The named fast-check properties of the extractor and the sniffer. */
export function metadataProperties(): Array<{ name: string; property: fc.IRawProperty<unknown[]> }> {
  return [
    {
      name: 'extractor: never throws, always eight fields, chunking does not change them',
      property: fc.property(
        documents,
        contentTypes,
        urls,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
        (bytes, type, url, cuts) => {
          const whole = extractMetadata(bytes, type, url);
          assertShape(whole);
          const chunked = extractChunked(bytes, type, url, cuts);
          assertShape(chunked);
          if (JSON.stringify(whole) !== JSON.stringify(chunked)) {
            throw new Error(`chunked differs:\n${JSON.stringify(whole)}\n${JSON.stringify(chunked)}`);
          }
        },
      ) as fc.IRawProperty<unknown[]>,
    },
    {
      name: 'references decoded in pieces exactly as entities decodes them whole',
      property: fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(
              '&',
              '#',
              'x',
              'X',
              ';',
              '=',
              'amp',
              'not',
              'notin',
              'it',
              'frac12',
              'sup2',
              'lt',
              '3',
              'a',
              'F',
              ' ',
              'é',
            ),
            fc.string({ maxLength: 4 }),
          ),
          { maxLength: 80 },
        ),
        fc.boolean(),
        fc.nat(24),
        (parts, attribute, wholeUpTo) => {
          const v = parts.join('');
          // An upstream defect, found by this property: entities 7 mis-decodes some named references without `;`
          // followed by punctuation ("&Psi+|" → "Â", "&Xi#" → "Á"; a browser leaves both as they are), whole or in
          // pieces alike but not identically. Such inputs are left out; everything else must match exactly.
          fc.pre(!/&[A-Za-z][A-Za-z0-9]*[^A-Za-z0-9;=&\s]/.test(v));
          const expected = attribute ? decodeHTMLAttribute(v) : decodeHTML(v);
          const got = decodeReferences(v, attribute, wholeUpTo);
          if (got !== expected)
            throw new Error(`${JSON.stringify(v)}: ${JSON.stringify(got)} instead of ${JSON.stringify(expected)}`);
        },
      ) as fc.IRawProperty<unknown[]>,
    },
    {
      name: 'whitespace collapsed in one pass exactly as by the regular expression',
      property: fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(' ', '  ', '\t', '\n', '\f', '\r', '\r\n', '\u00a0', '\u2003', '\v', '\ud800', '\udc00', '😀', 'é'),
            fc.string({ maxLength: 4 }),
          ),
          { maxLength: 80 },
        ),
        (parts) => {
          const v = parts.join('');
          const expected = collapseWhitespace(v);
          // A limit of 0 sends every value down the long values' path.
          const got = collapseWhitespace(v, 0);
          if (got !== expected)
            throw new Error(`${JSON.stringify(v)}: ${JSON.stringify(got)} instead of ${JSON.stringify(expected)}`);
        },
      ) as fc.IRawProperty<unknown[]>,
    },
    {
      name: 'sniffer: labels, Content-Type, meta attributes and decoding never throw',
      property: fc.property(
        fc.string({ maxLength: 80 }),
        fc.array(fc.tuple(fc.constantFrom('charset', 'content', 'http-equiv', 'name', 'x'), fc.string({ maxLength: 40 })), {
          maxLength: 6,
        }),
        fc.uint8Array({ maxLength: 600 }),
        (text, attrs, bytes) => {
          const label = resolveEncodingLabel(text);
          if (label !== null && typeof label !== 'string') throw new Error('label');
          const { essence, charset } = parseContentType(text);
          if (typeof essence !== 'string' || (charset !== null && typeof charset !== 'string')) throw new Error('content type');
          const fromContent = extractCharsetFromContent(text);
          if (fromContent !== null && !text.includes(fromContent)) throw new Error('charset not taken from the content');
          const declared = encodingFromMetaAttributes(attrs);
          if (declared === 'utf-16le' || declared === 'utf-16be') throw new Error('a document declared itself UTF-16');
          sniffBom(bytes);
          for (const enc of [label, declared].filter((e): e is string => e !== null)) {
            if (typeof decodeDocument(bytes, enc) !== 'string') throw new Error(`decoding as ${enc}`);
          }
        },
      ) as fc.IRawProperty<unknown[]>,
    },
    {
      name: 'sniffer: every legacy encoding decodes any bytes',
      property: fc.property(fc.constantFrom(...LEGACY_ENCODINGS), fc.uint8Array({ maxLength: 2000 }), (label, bytes) => {
        const enc = resolveEncodingLabel(label);
        if (enc === null) throw new Error(`${label} does not resolve`);
        if (typeof decodeDocument(bytes, enc) !== 'string') throw new Error(`decoding as ${enc}`);
      }) as fc.IRawProperty<unknown[]>,
    },
  ];
}

/** A small deterministic generator (xorshift32), so a failing mutation is reproduced from its seed. */
export function prng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 0x9e3779b9;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/** Mutates a page: flips bytes, inserts markup tokens and noise, deletes, duplicates and truncates ranges. */
export function mutate(page: Buffer, rand: (n: number) => number): Buffer {
  let b = Buffer.from(page);
  const count = 1 + rand(8);
  for (let i = 0; i < count && b.length > 0; i++) {
    const at = rand(b.length);
    const len = 1 + rand(Math.min(4096, b.length - at));
    switch (rand(6)) {
      case 0:
        for (let j = 0; j < 1 + rand(16); j++) b[rand(b.length)] = rand(256);
        break;
      case 1:
        b = Buffer.concat([b.subarray(0, at), Buffer.from(TOKENS[rand(TOKENS.length)]!.repeat(1 + rand(50))), b.subarray(at)]);
        break;
      case 2:
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + len)]);
        break;
      case 3:
        b = Buffer.concat([b.subarray(0, at + len), b.subarray(at, at + len), b.subarray(at + len)]);
        break;
      case 4:
        b = b.subarray(0, at);
        break;
      default:
        b = Buffer.concat([
          b.subarray(0, at),
          Buffer.from(Array.from({ length: 1 + rand(64) }, () => rand(256))),
          b.subarray(at),
        ]);
    }
  }
  return b;
}

/** Runs `iterations` mutations from `seed`; returns the failures (seed and iteration let one be replayed). */
export function mutationFuzz(
  seed: number,
  iterations: number,
  deadline = Number.POSITIVE_INFINITY,
): { runs: number; failures: string[] } {
  const pages = metadataPages();
  const rand = prng(seed);
  const failures: string[] = [];
  let runs = 0;
  for (let i = 0; i < iterations && Date.now() < deadline; i++, runs++) {
    const page = pages[rand(pages.length)]!;
    const bytes = mutate(page.bytes, rand);
    const type = rand(3) === 0 ? `text/html; charset=${LEGACY_ENCODINGS[rand(LEGACY_ENCODINGS.length)]}` : 'text/html';
    try {
      assertShape(extractMetadata(bytes, type, page.url));
      assertShape(extractChunked(bytes, type, page.url, [rand(1000) / 1000, rand(1000) / 1000, rand(1000) / 1000]));
    } catch (err) {
      failures.push(`seed ${seed} iteration ${i} (${page.name}, ${type}): ${(err as Error).message}`);
    }
  }
  return { runs, failures };
}
