/** The metadata service client: a page address in, the eight typed fields out. */
import type { Static } from '@sinclair/typebox';
import type { MetadataSchema } from '../metadata/routes.js';
import { type ClientErrorCode, MetadataApiError, metadataCodeOf } from './errors.js';
import { type CallOptions, type ClientOptions, endpoint, exchange, jsonOf } from './transport.js';

/** The answer of GET /v1/fetch, as the service's schema defines it: eight fields, each a string or null. */
export type Metadata = Static<typeof MetadataSchema>;

/** The service's own fetch is bounded by METADATA_TIMEOUT_MS (10 s); this leaves room for the rest. */
const DEFAULT_TIMEOUT_MS = 20_000;

/** Reads `{"detail"}`; anything else is reported as it came. */
function metadataError(
  status: number,
  body: string,
  requestId: string | undefined,
  retryAfterS: number | undefined,
): MetadataApiError {
  let detail = `HTTP ${status}: ${body.slice(0, 200)}`;
  try {
    const parsed = JSON.parse(body) as { detail?: unknown };
    if (typeof parsed.detail === 'string') detail = parsed.detail;
  } catch {
    // Not JSON: a proxy in front of the service answered; keep the raw text.
  }
  return new MetadataApiError(metadataCodeOf(status), detail, status, requestId, retryAfterS);
}

/** Calls GET /v1/fetch of one Pageworks metadata service. */
export class MetadataClient {
  constructor(private readonly options: ClientOptions) {}

  /** Fetches the page at `url` (http or https) through the service and resolves with its metadata. */
  async fetchMetadata(url: string, call: CallOptions = {}): Promise<Metadata> {
    const answer = await exchange({
      url: endpoint(this.options.baseUrl, `/v1/fetch?url=${encodeURIComponent(url)}`),
      init: { method: 'GET', headers: { 'x-api-key': this.options.apiKey, accept: 'application/json' } },
      timeoutMs: call.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: call.signal,
      options: this.options,
      idHeader: 'x-request-id',
      serviceError: metadataError,
      clientError: (code: ClientErrorCode, message: string, cause?: unknown) =>
        new MetadataApiError(code, message, undefined, undefined, undefined, { cause }),
    });
    return jsonOf<Metadata>(answer);
  }
}
