/**
 * The render report's entry as a TypeBox schema, for the OpenAPI documents of the job object and of
 * GET /v1/renders/{id}; its static type is report.ts's ReportEntry (checked below, so the two cannot drift).
 */
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { ReportEntry } from './report.js';

const Url = Type.String({ maxLength: 500, description: 'Cut to 500 characters; a data: URL shows its media type only.' });
const Message = Type.String({ description: 'What happened, in plain words, and what to do where there is something.' });
const entry = <K extends string, P extends Parameters<typeof Type.Object>[0]>(kind: K, props: P, description: string) =>
  Type.Object(
    {
      kind: Type.Literal(kind),
      ...props,
      message: Message,
      part: Type.Optional(Type.String({ maxLength: 20, description: 'In an assembly: the part that met it, parts[N].' })),
    },
    { additionalProperties: false, description },
  );

/** One entry of a render report (docs/rendering.md#when-a-document-cannot-get-everything). */
export const ReportEntrySchema = Type.Union([
  entry(
    'resource_blocked',
    { url: Url, reason: Type.Union(['private_address', 'unresolvable', 'scheme', 'too_large'].map((r) => Type.Literal(r))) },
    'The egress policy refused a request of the document.',
  ),
  entry(
    'resource_failed',
    {
      url: Url,
      status: Type.Optional(Type.Integer({ description: 'The HTTP status it answered (4xx/5xx).' })),
      error: Type.Optional(
        Type.Union(
          [
            'refused',
            'reset',
            'timeout',
            'tls',
            'cors',
            'csp',
            'credentials',
            'orb',
            'corp',
            'framing',
            'decoding',
            'redirects',
            'relative',
            'undecodable',
          ].map((r) => Type.Literal(r)),
        ),
      ),
    },
    'A subresource answered an HTTP error or failed at the network level, had a relative address with nothing to resolve it against, or was an image that could not be decoded.',
  ),
  entry(
    'font_failed',
    { family: Type.String(), url: Type.Union([Url, Type.Null()]) },
    'A @font-face the document used ended in state error.',
  ),
  entry('script_error', { text: Type.String({ maxLength: 300 }) }, 'An uncaught exception or unhandled rejection.'),
  entry('not_ready', { text: Type.String({ maxLength: 300 }) }, 'window.pageworksReady rejected; printing went on.'),
  entry(
    'printed_while_pending',
    { count: Type.Integer({ minimum: 1 }), urls: Type.Array(Url, { maxItems: 10 }) },
    'RENDER_IDLE_MAX_MS ran out with requests pending.',
  ),
  entry(
    'frames_missed',
    { count: Type.Integer({ minimum: 1, description: 'The requestAnimationFrame callbacks still waiting.' }) },
    'The document waited for an animation frame that did not come within a second; it printed without it.',
  ),
  entry('unresolved_reference', { target: Type.String() }, 'A cross-reference whose target is not in the document.'),
  entry(
    'conformance',
    {
      profile: Type.String({ maxLength: 200, description: 'The declared profile, e.g. PDF/UA-1, PDF/A-3b or Factur-X.' }),
      clause: Type.String({ maxLength: 200, description: 'The clause it misses (veraPDF rule id where there is one).' }),
      element: Type.String({ maxLength: 200, description: 'Where in the document, e.g. img[src="logo.png"].' }),
    },
    'The document declared a profile it cannot meet; the PDF does not claim it.',
  ),
  entry(
    'active_content',
    {
      content: Type.Union(
        [
          'javascript',
          'launch',
          'submit_form',
          'import_data',
          'javascript_link',
          'signature_field',
          'attachment',
          'permissions',
        ].map((c) => Type.Literal(c)),
      ),
      count: Type.Integer({ minimum: 1, description: 'How many the part carried.' }),
      removed: Type.Boolean({ description: 'Taken out of the assembly; false for an attachment, which is kept.' }),
    },
    'An existing PDF part carried something that acts on its reader (taken out), an attachment (kept), or its owner’s restrictions (not kept).',
  ),
  entry(
    'truncated',
    { dropped: Type.Integer({ minimum: 1 }) },
    'More entries than a report keeps (100); how many were left out.',
  ),
]);

// Compile-time check that the schema describes exactly the ReportEntry type.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<Static<typeof ReportEntrySchema>['kind'], ReportEntry['kind']> = true;
void sameShape;

/**
 * The entries of a stored report (JSON) that have the shape of an entry: a row written before reports
 * were checked on their way in cannot make a read of its job or render fail; none when it is not JSON.
 */
export function storedEntries(json: string | null): ReportEntry[] {
  if (json === null || json === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? parsed.filter((e): e is ReportEntry => Value.Check(ReportEntrySchema, e)) : [];
}
