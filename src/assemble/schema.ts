/**
 * The assemble request (POST /v1/assemble, and an assembly job's body): its TypeBox schema for the
 * OpenAPI document, its limits and its types. Its strict validator is validate-request.ts.
 */
import { type Static, Type } from '@sinclair/typebox';
import { MAX_SELECTION_LENGTH } from '../pdf/index.js';
import { MAX_BODY_BYTES, RenderOptionsSchema } from '../render/index.js';

/** Most parts of an assembly job (a sync request: ASSEMBLE_MAX_PARTS, 100 by default). */
export const ASSEMBLE_JOB_MAX_PARTS = 5000;
/**
 * Largest body of POST /v1/assemble and of an assembly job: the render request's own cap (about 60 MiB),
 * which holds a 10 MiB HTML part at its worst escaping, or about 45 MB of PDFs in base64.
 */
export const MAX_ASSEMBLE_BODY_BYTES = MAX_BODY_BYTES;
/** Longest `url` of a part, as the metadata service's. */
export const MAX_PART_URL_LENGTH = 2048;
/** Longest password, reason, location or contact. */
export const MAX_TEXT = 200;
/** The permissions `protect.allow` may grant. */
export const PERMISSIONS = ['print', 'copy', 'modify', 'annotate', 'fill-forms', 'assemble'] as const;
/** A permission of `protect.allow`. */
export type Permission = (typeof PERMISSIONS)[number];

/** Longest part `title`. */
export const MAX_TITLE = 500;
/** Quarter turns a part's pages may be given. */
export const ROTATIONS = [0, 90, 180, 270] as const;

/** What every kind of part may carry besides its source: its outline entry, its pages, their rotation. */
const PartFinishing = {
  title: Type.Optional(
    Type.String({ maxLength: MAX_TITLE, description: 'The part’s outline entry (else its document title, else "Part N").' }),
  ),
  pages: Type.Optional(
    Type.String({
      maxLength: MAX_SELECTION_LENGTH,
      description:
        'The part’s pages kept, in its order: "1-3,5", "2-" (to the end), "-1" (the last), "!1" (all but page 1). Default: all.',
    }),
  ),
  rotate: Type.Optional(
    Type.Union(
      ROTATIONS.map((r) => Type.Literal(r)),
      { description: 'Degrees clockwise each kept page is turned.' },
    ),
  ),
};
/** The fields every kind of part may carry besides its source. */
export const FINISHING_FIELDS = Object.keys(PartFinishing);

const HtmlPart = Type.Object(
  {
    html: Type.String({
      minLength: 1,
      description: 'An HTML document rendered exactly as POST /v1/render would (at most 10 MiB).',
    }),
    options: Type.Optional(RenderOptionsSchema),
    ...PartFinishing,
  },
  { additionalProperties: false, title: 'HTML part' },
);
const PdfPart = Type.Object(
  {
    pdf: Type.String({ minLength: 1, description: 'An existing PDF, base64 (standard alphabet, padding optional).' }),
    ...PartFinishing,
  },
  { additionalProperties: false, title: 'PDF part' },
);
const UrlPart = Type.Object(
  {
    url: Type.String({
      maxLength: MAX_PART_URL_LENGTH,
      description: 'An http(s) address of an existing PDF, fetched through the egress policy (EGRESS_ALLOW).',
    }),
    ...PartFinishing,
  },
  { additionalProperties: false, title: 'URL part' },
);

/** Longest name of an uploaded file a part names. */
export const MAX_FILE_NAME = 255;
const FilePart = Type.Object(
  {
    file: Type.String({
      minLength: 1,
      maxLength: MAX_FILE_NAME,
      description: 'The file name of a PDF uploaded beside the body (multipart/form-data requests only).',
    }),
    ...PartFinishing,
  },
  { additionalProperties: false, title: 'File part' },
);

/** One part: an HTML document to render, a PDF in base64, the address of a PDF, or an uploaded file. */
export const AssemblePartSchema = Type.Union([HtmlPart, PdfPart, UrlPart, FilePart]);

/** Where a multipart request's uploaded file names ride on its parsed body (not a JSON field: a symbol). */
export const UPLOADED_NAMES = Symbol('uploaded file names');
/** Beside them, the names of the files that are not PDFs (no `%PDF-` in their first KiB). */
export const UPLOADS_NOT_PDF = Symbol('uploaded files that are not PDFs');

/** `protect`: AES-256 (revision 6) with an owner password, an optional user password and permissions. */
export const ProtectSchema = Type.Object(
  {
    user_password: Type.Optional(
      Type.String({ maxLength: MAX_TEXT, description: 'Needed to open the PDF; without it anyone can open it.' }),
    ),
    owner_password: Type.String({ minLength: 1, maxLength: MAX_TEXT, description: 'Lifts the restrictions.' }),
    allow: Type.Optional(
      Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p))), {
        uniqueItems: true,
        description:
          'What a reader without the owner password may do (default: nothing but reading; extraction for accessibility is always allowed).',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `sign`: a PAdES signature with a certificate the account uploaded (POST /v1/certificates). */
export const SignSchema = Type.Object(
  {
    certificate: Type.String({ pattern: '^crt_[0-9a-z]+$', description: 'The id of the account’s certificate (crt_…).' }),
    reason: Type.Optional(Type.String({ maxLength: MAX_TEXT })),
    location: Type.Optional(Type.String({ maxLength: MAX_TEXT })),
    contact: Type.Optional(Type.String({ maxLength: MAX_TEXT })),
  },
  { additionalProperties: false },
);

/** Longest `metadata` value. */
export const MAX_METADATA_TEXT = 2000;
/** The fields of `metadata`. */
export const METADATA_FIELDS = ['title', 'author', 'subject', 'keywords', 'lang'] as const;

/** `metadata`: the assembly's own properties (else the first part's). */
export const MetadataSchema = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: MAX_METADATA_TEXT, description: 'Also shown as the window title.' })),
    author: Type.Optional(Type.String({ maxLength: MAX_METADATA_TEXT })),
    subject: Type.Optional(Type.String({ maxLength: MAX_METADATA_TEXT })),
    keywords: Type.Optional(Type.String({ maxLength: MAX_METADATA_TEXT })),
    lang: Type.Optional(Type.String({ maxLength: 64, description: 'A BCP 47 language tag (en, de-CH): the catalog’s /Lang.' })),
  },
  { additionalProperties: false, description: 'The assembly’s Info and XMP (a property left out keeps the first part’s).' },
);

/** Most stamps an assembly may have. */
export const MAX_STAMPS = 10;
/** Longest stamp document. */
export const MAX_STAMP_HTML = 1024 * 1024;

/** A stamp: an HTML document drawn on each page it names, its page numbers filled in. */
export const StampSchema = Type.Object(
  {
    html: Type.String({
      minLength: 1,
      maxLength: MAX_STAMP_HTML,
      description:
        'Drawn on each stamped page, positioned within a box the size of the page; {{page}}, {{pages}}, {{part}}, {{part_title}}, {{part_page}} and {{part_pages}} are filled in per page.',
    }),
    pages: Type.Optional(
      Type.String({ maxLength: MAX_SELECTION_LENGTH, description: 'The assembly’s pages stamped ("2-", "!1"); default all.' }),
    ),
    layer: Type.Optional(
      Type.Union([Type.Literal('over'), Type.Literal('under')], {
        description: 'Over the content (default) or under it (a watermark).',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Most `split.ranges`. */
export const MAX_SPLIT_RANGES = 1000;

/** `split`: the answer is a zip of PDFs, one per part, per `every` pages, or per range. */
export const SplitSchema = Type.Union(
  [
    Type.Literal('parts', { description: 'One file per part, named by its title.' }),
    Type.Object(
      { every: Type.Integer({ minimum: 1, description: 'One file per this many pages (the last may have fewer).' }) },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        ranges: Type.Array(Type.String({ maxLength: MAX_SELECTION_LENGTH }), {
          minItems: 1,
          maxItems: MAX_SPLIT_RANGES,
          description: 'One file per page selection ("1-3", "4-"), named by its pages.',
        }),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'The answer becomes application/zip: a PDF per piece, each with its own outline, claims, protection and signature.',
  },
);

/** The body of POST /v1/assemble. */
export const AssembleRequestSchema = Type.Object(
  {
    parts: Type.Array(AssemblePartSchema, {
      minItems: 1,
      description: 'The parts in order: at least one, at most ASSEMBLE_MAX_PARTS (100) here and 5,000 in a job.',
    }),
    stamps: Type.Optional(Type.Array(StampSchema, { maxItems: MAX_STAMPS, description: 'Up to 10 stamps, laid in order.' })),
    metadata: Type.Optional(MetadataSchema),
    split: Type.Optional(SplitSchema),
    protect: Type.Optional(ProtectSchema),
    sign: Type.Optional(SignSchema),
  },
  { additionalProperties: false },
);

/** A validated assemble request. */
export type AssembleRequest = Static<typeof AssembleRequestSchema>;
/** One part of it. */
export type AssemblePart = Static<typeof AssemblePartSchema>;

/** What a part is, as the render record and the dashboard name it. */
export type PartKind = 'html' | 'pdf' | 'url';

/** The kind of a validated part. */
export function partKind(part: AssemblePart): PartKind {
  // An uploaded file is an existing PDF, as a base64 one is.
  return 'html' in part ? 'html' : 'url' in part ? 'url' : 'pdf';
}

/** How a part is named in messages: its place in `parts`. */
export function partLabel(index: number): string {
  return `parts[${index}]`;
}
