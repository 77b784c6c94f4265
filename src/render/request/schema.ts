/**
 * The render request schema (TypeBox: one source for validation, types and OpenAPI) and its strict
 * validator, whose messages name the offending field.
 */
import { type Static, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { cutText, MAX_QUOTED, quoted } from '../../cut-text.js';
import { invalid, RENDER_ERRORS, RenderError } from '../../errors.js';
import { DIMENSION_PATTERN, notADimensionMessage, PAGE_FORMATS, SCALE_MAX, SCALE_MIN } from './options.js';

/** Most UTF-8 bytes of `html` (10 MiB). */
export const MAX_HTML_BYTES = 10 * 1024 * 1024;
/**
 * Largest request body: `html` at its limit, JSON-escaped at worst 6 bytes per byte (`\u0001`), plus
 * room for the options. Anything larger cannot hold a valid request.
 */
export const MAX_BODY_BYTES = MAX_HTML_BYTES * 6 + 64 * 1024;
/** What a body that carries HTML holds at most, as its 413 says (a route's `bodyHolds`). */
export const HTML_BODY_HOLDS = `html: at most ${MAX_HTML_BYTES / (1024 * 1024)} MiB`;

const Dimension = (description: string) =>
  Type.String({
    pattern: DIMENSION_PATTERN,
    description: `${description} A number and a unit: mm, cm, in or px (96 px = 1 in).`,
    examples: ['10mm'],
  });

/** Rendering options; every member optional. */
export const RenderOptionsSchema = Type.Object(
  {
    format: Type.Optional(
      Type.String({
        description: `Page format, case-insensitive: ${Object.keys(PAGE_FORMATS).join(', ')}.`,
        default: 'A4',
        examples: ['A4', 'Letter'],
      }),
    ),
    landscape: Type.Optional(
      Type.Boolean({ default: false, description: 'Swap the format’s sides. Ignored when both width and height are set.' }),
    ),
    printBackground: Type.Optional(Type.Boolean({ default: false, description: 'Print background colours and images.' })),
    scale: Type.Optional(
      Type.Number({ minimum: SCALE_MIN, maximum: SCALE_MAX, default: 1, description: 'Rendering scale, 0.1 to 2.0.' }),
    ),
    margin: Type.Optional(
      Type.Object(
        {
          top: Type.Optional(Dimension('Top margin.')),
          bottom: Type.Optional(Dimension('Bottom margin.')),
          left: Type.Optional(Dimension('Left margin.')),
          right: Type.Optional(Dimension('Right margin.')),
        },
        { additionalProperties: false },
      ),
    ),
    width: Type.Optional(Dimension('Page width; replaces the format’s width (both width and height: exact page size).')),
    height: Type.Optional(Dimension('Page height; replaces the format’s height.')),
  },
  { additionalProperties: false },
);

/** The body of POST /v1/render. */
export const RenderRequestSchema = Type.Object(
  {
    html: Type.String({ minLength: 1, description: 'The HTML document: non-empty, at most 10 MiB (10,485,760 bytes) of UTF-8.' }),
    output: Type.Optional(Type.Literal('pdf', { description: 'Output format; only "pdf".' })),
    options: Type.Optional(RenderOptionsSchema),
  },
  { additionalProperties: false },
);

/** A validated render request. */
export type RenderRequest = Static<typeof RenderRequestSchema>;

/** The error body of every failure. */
export const RenderErrorSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Union(Object.keys(RENDER_ERRORS).map((c) => Type.Literal(c))),
        message: Type.String(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'Every failure: a code from the error table and a message naming the cause.' },
);

const compiled = TypeCompiler.Compile(RenderRequestSchema);

/** The field a schema error's path names (`options.margin.left`), cut to 100 characters: a field name can be any length. */
function fieldName(path: string): string {
  return path === '' ? 'body' : cutText(path.slice(1).split('/').join('.'), MAX_QUOTED);
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${quoted(value)}`;
}

const EXPECTED: Partial<Record<ValueErrorType, string>> = {
  [ValueErrorType.String]: 'a string',
  [ValueErrorType.Number]: 'a number',
  [ValueErrorType.Boolean]: 'a boolean (true or false)',
  [ValueErrorType.Object]: 'a JSON object',
};

/** Turns the first schema error into the client message. */
function describe(error: { type: ValueErrorType; path: string; value: unknown; message: string }): string {
  const field = fieldName(error.path);
  switch (error.type) {
    case ValueErrorType.ObjectAdditionalProperties:
      return `${field}: unknown field`;
    case ValueErrorType.ObjectRequiredProperty:
      return `${field}: required`;
    case ValueErrorType.StringMinLength:
      return `${field}: must not be empty`;
    case ValueErrorType.StringPattern:
      return notADimensionMessage(field, error.value);
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
      return `${field}: ${quoted(error.value)} is out of range (${SCALE_MIN} to ${SCALE_MAX.toFixed(1)})`;
    case ValueErrorType.Literal:
      return `${field}: ${quoted(error.value)} is not supported (only "pdf")`;
    default: {
      const expected = EXPECTED[error.type];
      return expected ? `${field}: must be ${expected}, got ${kind(error.value)}` : `${field}: ${error.message}`;
    }
  }
}

/** Validates a parsed body against the strict schema; throws INVALID_REQUEST or PAYLOAD_TOO_LARGE. */
export function validateRenderRequest(body: unknown): RenderRequest {
  if (!compiled.Check(body)) {
    const first = compiled.Errors(body).First();
    throw invalid(first ? describe(first) : 'body: not a valid render request');
  }
  const bytes = Buffer.byteLength(body.html, 'utf8');
  if (bytes > MAX_HTML_BYTES) {
    throw new RenderError(
      'PAYLOAD_TOO_LARGE',
      `html: ${bytes} bytes of UTF-8 is more than the limit of ${MAX_HTML_BYTES} bytes (10 MiB)`,
    );
  }
  return body;
}
