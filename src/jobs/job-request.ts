/**
 * The body of POST /v1/jobs: its schema, its size limit, and its validation (the render request's own
 * strict rules, or the assemble request's, plus `webhook` and `reference`).
 */
import { Type } from '@sinclair/typebox';
import { charactersOver, unshowableCharacterProblem } from '../accounts/user-text.js';
import {
  ASSEMBLE_JOB_MAX_PARTS,
  type AssembleRequest,
  AssembleRequestSchema,
  UPLOADED_NAMES,
  UPLOADS_NOT_PDF,
  validateAssembleRequest,
} from '../assemble/index.js';
import { cutText, MAX_QUOTED } from '../cut-text.js';
import { invalid } from '../errors.js';
import { MAX_BODY_BYTES, type RenderRequest, RenderRequestSchema, validateRenderRequest } from '../render/index.js';
import { MAX_WEBHOOK_URL_LENGTH } from './webhook-url.js';

/** Longest `reference`. */
export const MAX_REFERENCE_LENGTH = 200;

const JobExtras = {
  webhook: Type.Optional(
    Type.Object(
      {
        url: Type.String({
          maxLength: MAX_WEBHOOK_URL_LENGTH,
          description: 'https:// (or http://) URL called when the job is final.',
        }),
      },
      { additionalProperties: false },
    ),
  ),
  reference: Type.Optional(Type.String({ maxLength: MAX_REFERENCE_LENGTH, description: 'Your own label, echoed back.' })),
};

/**
 * The body of POST /v1/jobs: the render request, or the assemble request (`parts`, up to 5,000), plus
 * `webhook` and `reference`.
 */
export const JobRequestSchema = Type.Union([
  Type.Object({ ...RenderRequestSchema.properties, ...JobExtras }, { additionalProperties: false, title: 'Render job' }),
  Type.Object({ ...AssembleRequestSchema.properties, ...JobExtras }, { additionalProperties: false, title: 'Assembly job' }),
]);

/** A validated job request. */
export interface JobRequest {
  request: RenderRequest | AssembleRequest;
  webhookUrl: string | null;
  reference: string | null;
}

/** The render request's validator does the shared part, so every message and code is the same as /v1/render's. */
export function validateJobRequest(body: unknown): JobRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { request: validateRenderRequest(body), webhookUrl: null, reference: null };
  const { webhook, reference, ...rest } = body as Record<string, unknown>;
  // The names of a multipart request's files ride on the body as a symbol the spread above leaves behind.
  for (const carried of [UPLOADED_NAMES, UPLOADS_NOT_PDF]) {
    const value = (body as Record<symbol, unknown>)[carried];
    if (value) Object.defineProperty(rest, carried, { value, enumerable: false });
  }
  // An assembly job: `parts` instead of `html`, up to ASSEMBLE_JOB_MAX_PARTS.
  const request =
    'parts' in rest ? validateAssembleRequest(rest, ASSEMBLE_JOB_MAX_PARTS, `a job's limit`) : validateRenderRequest(rest);
  if (reference !== undefined && typeof reference !== 'string') throw invalid('reference: must be a string');
  const referenceLength = typeof reference === 'string' ? charactersOver(reference, MAX_REFERENCE_LENGTH) : undefined;
  if (referenceLength !== undefined) {
    throw invalid(`reference: ${referenceLength} characters is more than the limit of ${MAX_REFERENCE_LENGTH}`);
  }
  // The reference is shown back on the dashboard's Jobs page, so it follows the rule for names.
  const unshowable = typeof reference === 'string' ? unshowableCharacterProblem('reference', reference) : undefined;
  if (unshowable !== undefined) throw invalid(unshowable);
  let webhookUrl: string | null = null;
  if (webhook !== undefined) {
    if (webhook === null || typeof webhook !== 'object' || Array.isArray(webhook))
      throw invalid('webhook: must be a JSON object {"url": "https://…"}');
    const { url, ...others } = webhook as Record<string, unknown>;
    const unknown = Object.keys(others)[0];
    if (unknown !== undefined) throw invalid(`${cutText(`webhook.${unknown}`, MAX_QUOTED)}: unknown field`);
    if (typeof url !== 'string' || url === '') throw invalid('webhook.url: required, a URL string');
    webhookUrl = url;
  }
  return { request, webhookUrl, reference: reference ?? null };
}

/** Longest body of POST /v1/jobs, JSON or multipart: the render request's, with room for `webhook` and `reference`. */
export const MAX_JOB_BODY_BYTES = MAX_BODY_BYTES + 8 * 1024;
