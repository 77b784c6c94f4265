/** The render service client: HTML in, a PDF out as a Buffer or as a stream that is never held whole. */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Static } from '@sinclair/typebox';
import type { RenderOptionsSchema, RenderRequestSchema } from '../render/schema.js';
import { type ClientErrorCode, RenderApiError, renderApiErrorOf } from './errors.js';
import { type Answer, type CallOptions, type ClientOptions, endpoint, exchange } from './transport.js';

/** The rendering options, as the service's schema defines them (format, landscape, margin, …). */
export type RenderOptions = Static<typeof RenderOptionsSchema>;
/** The body of POST /v1/render, as the service's schema defines it. */
export type RenderRequest = Static<typeof RenderRequestSchema>;

/** A PDF on its way: read `body` to the end (pipe it to a file or an HTTP response). */
export interface RenderStream {
  /** The PDF bytes as they arrive. */
  body: Readable;
  /** X-Render-ID, for support. */
  renderId: string | undefined;
  /** Content-Length of the PDF. */
  contentLength: number | undefined;
}

/** Renders take seconds, not milliseconds: the service's own limit is RENDER_TIMEOUT_MS (30 s) plus queueing. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** The PDF of a successful render-service answer as a Node stream (`/v1/render`, `/v1/jobs/{id}/pdf`). */
export function pdfStreamOf(answer: Answer): RenderStream {
  answer.settle();
  const { response } = answer;
  if (!response.body)
    throw new RenderApiError('INVALID_RESPONSE', 'the answer has no body', response.status, answer.requestId, undefined);
  const length = response.headers.get('content-length');
  return {
    // undici's stream is the web stream of node:stream/web; the DOM lib types it separately.
    body: Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
    renderId: answer.requestId,
    contentLength: length === null ? undefined : Number(length),
  };
}

/** Calls POST /v1/render of one Pageworks render service. */
export class RenderClient {
  constructor(private readonly options: ClientOptions) {}

  /** Renders `html` to PDF and resolves with the whole PDF. */
  async render(html: string, options?: RenderOptions, call: CallOptions = {}): Promise<Buffer> {
    const answer = await this.send(html, options, call);
    try {
      return Buffer.from(await answer.response.arrayBuffer());
    } catch (err) {
      throw answer.failure(err);
    } finally {
      answer.settle();
    }
  }

  /**
   * Renders `html` to PDF and resolves as soon as the answer starts, with the PDF as a Node stream.
   * The timeout covers the wait for the answer; the body is bounded by `call.signal` only.
   */
  async renderStream(html: string, options?: RenderOptions, call: CallOptions = {}): Promise<RenderStream> {
    return pdfStreamOf(await this.send(html, options, call));
  }

  private send(html: string, options: RenderOptions | undefined, call: CallOptions) {
    const request: RenderRequest = options === undefined ? { html } : { html, options };
    return exchange({
      url: endpoint(this.options.baseUrl, '/v1/render'),
      init: {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.options.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/pdf',
        },
        body: JSON.stringify(request),
      },
      timeoutMs: call.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: call.signal,
      options: this.options,
      idHeader: 'x-render-id',
      serviceError: renderApiErrorOf,
      clientError: (code: ClientErrorCode, message: string, cause?: unknown) =>
        new RenderApiError(code, message, undefined, undefined, undefined, { cause }),
    });
  }
}
