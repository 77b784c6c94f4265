/** The render service client: HTML in, a PDF out as a Buffer or as a stream that is never held whole. */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Static } from '@sinclair/typebox';
import type { AssembleRequestSchema } from '../assemble/schema.js';
import type { RenderOptionsSchema, RenderRequestSchema } from '../render/index.js';
import { type AssembleFiles, assembleForm, FORM_FETCH_INIT } from './assemble-form.js';
import { RenderApiError } from './errors.js';
import { renderServiceExchange } from './render-exchange.js';
import type { RenderReport } from './render-report.js';
import { type Answer, type CallOptions, type ClientOptions, jsonOf } from './transport.js';
import { type ZipFile, zipEntries } from './zip-entries.js';

/** The rendering options, as the service's schema defines them (format, landscape, margin, …). */
export type RenderOptions = Static<typeof RenderOptionsSchema>;
/** The body of POST /v1/render, as the service's schema defines it. */
export type RenderRequest = Static<typeof RenderRequestSchema>;

/** The body of POST /v1/assemble (`parts`, and `protect`, `sign`), as the service's schema defines it. */
export type AssembleRequest = Static<typeof AssembleRequestSchema>;

/** `split` of an assembly: `"parts"`, `{ every: N }` or `{ ranges: [...] }`. */
export type AssembleSplit = NonNullable<AssembleRequest['split']>;

/** A split assembly's answer: the zip's bytes (a Buffer), with its PDFs read from it, the render id, warning count and claims. */
export type RenderedZip = Buffer & {
  /** X-Render-ID: `getRender(zip.renderId)` returns the assembly's report. */
  renderId: string;
  /** X-Render-Warnings, as for a PDF. */
  warnings: number;
  /** X-Render-Claims: what every file of the zip claims. */
  claims: RenderReport['claims'];
  /** The zip's PDFs in order, named as the service named them (a part's title, or the range's pages). */
  files: ZipFile[];
};

/** The options of `assemble`: those of `render`, and the files the parts name. */
export interface AssembleCallOptions extends RenderCallOptions {
  /**
   * The PDFs that parts name with `{"file": "terms.pdf"}`, by that name. Given, the request is sent as
   * multipart/form-data (the JSON in a `body` field, each file beside it, streamed as it is sent, never
   * base64); absent, as JSON.
   */
  files?: AssembleFiles;
}

/** A PDF on its way: read `body` to the end (pipe it to a file or an HTTP response). */
export interface RenderStream {
  /** The PDF bytes as they arrive. */
  body: Readable;
  /** X-Render-ID, for support. */
  renderId: string | undefined;
  /** Content-Length of the PDF. */
  contentLength: number | undefined;
  /** X-Render-Warnings: what the document could not get (getRender lists it); undefined when the answer has none. */
  warnings: number | undefined;
  /** X-Render-Claims: the standards the PDF claims (`['PDF/A-3b', 'PDF/UA-1']`); empty when it claims none. */
  claims: RenderReport['claims'];
}

/** A rendered PDF: the bytes (a Buffer, as before), with the render's id, its warning count and its claims. */
export type RenderedPdf = Buffer & {
  /** X-Render-ID, which every answer of the service carries: `getRender(pdf.renderId)` returns its report. */
  renderId: string;
  /** X-Render-Warnings: how many things the document could not get (0 when it got everything). */
  warnings: number;
  /** X-Render-Claims: the standards the PDF claims (`['PDF/A-3b', 'PDF/UA-1']`, docs/standards.md); empty when it claims none. */
  claims: RenderReport['claims'];
};

/** The claims an answer's X-Render-Claims header names; none when it has no such header. */
function claimsOf(headers: Headers): RenderReport['claims'] {
  const value = headers.get('x-render-claims');
  if (value === null) return [];
  return value
    .split(',')
    .map((claim) => claim.trim())
    .filter((claim) => claim !== '') as RenderReport['claims'];
}

/** A render call's options: those of every call, and `strict`. */
export interface RenderCallOptions extends CallOptions {
  /** Sends `Prefer: handling=strict`: any warning fails the render with RENDER_INCOMPLETE (422). */
  strict?: boolean;
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
  const warnings = response.headers.get('x-render-warnings');
  return {
    warnings: warnings === null ? undefined : Number(warnings),
    claims: claimsOf(response.headers),
    // undici's stream is the web stream of node:stream/web; the DOM lib types it separately.
    body: Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
    renderId: answer.requestId,
    contentLength: length === null ? undefined : Number(length),
  };
}

/** A zip's answer with its PDFs read from it; INVALID_RESPONSE when it cannot be read. */
function withZipFiles(zip: RenderedPdf): RenderedZip {
  try {
    return Object.assign(zip, { files: zipEntries(zip) });
  } catch (err) {
    const message = `the zip cannot be read: ${(err as Error).message}`;
    throw new RenderApiError('INVALID_RESPONSE', message, 200, zip.renderId, undefined, { cause: err });
  }
}

/** Calls POST /v1/render of one Pageworks render service. */
export class RenderClient {
  constructor(private readonly options: ClientOptions) {}

  /** Renders `html` to PDF and resolves with the whole PDF, which also carries its render id and warning count. */
  async render(html: string, options?: RenderOptions, call: RenderCallOptions = {}): Promise<RenderedPdf> {
    return this.wholePdf(await this.send(html, options, call));
  }

  /** The whole PDF of an answer, with its render id and warning count. */
  private async wholePdf(answer: Answer): Promise<RenderedPdf> {
    // The service names every render; an answer without the name came from something else (a proxy's page).
    const renderId = answer.requestId;
    if (renderId === undefined) {
      answer.settle();
      await answer.response.body?.cancel();
      throw new RenderApiError('INVALID_RESPONSE', 'the answer has no X-Render-ID', answer.response.status, undefined, undefined);
    }
    try {
      const pdf = Buffer.from(await answer.response.arrayBuffer());
      const warnings = Number(answer.response.headers.get('x-render-warnings') ?? 0);
      return Object.assign(pdf, { renderId, warnings, claims: claimsOf(answer.response.headers) });
    } catch (err) {
      throw answer.failure(err);
    } finally {
      answer.settle();
    }
  }

  /**
   * Assembles parts (HTML rendered as `render` would, PDFs in base64, PDFs at an address, files sent beside
   * the body) into one PDF, finished, protected and signed as asked (POST /v1/assemble); the same errors as
   * `render`, a part's naming it (`parts[2]: …`). With `split` it resolves with the zip and its PDFs.
   */
  assemble(request: AssembleRequest & { split: AssembleSplit }, call?: AssembleCallOptions): Promise<RenderedZip>;
  assemble(request: AssembleRequest & { split?: undefined }, call?: AssembleCallOptions): Promise<RenderedPdf>;
  assemble(request: AssembleRequest, call?: AssembleCallOptions): Promise<RenderedPdf | RenderedZip>;
  async assemble(request: AssembleRequest, call: AssembleCallOptions = {}): Promise<RenderedPdf | RenderedZip> {
    const { files, ...rest } = call;
    const headers = this.headers(rest, '/v1/assemble');
    const answer = files
      ? await this.call(
          '/v1/assemble',
          { ...FORM_FETCH_INIT, method: 'POST', headers, body: await assembleForm(request, files) },
          rest,
        )
      : await this.post('/v1/assemble', request, rest);
    const zipped = answer.response.headers.get('content-type')?.startsWith('application/zip') === true;
    const whole = await this.wholePdf(answer);
    return zipped ? withZipFiles(whole) : whole;
  }

  /**
   * Renders `html` to PDF and resolves as soon as the answer starts, with the PDF as a Node stream.
   * The timeout covers the wait for the answer; the body is bounded by `call.signal` only.
   */
  async renderStream(html: string, options?: RenderOptions, call: RenderCallOptions = {}): Promise<RenderStream> {
    return pdfStreamOf(await this.send(html, options, call));
  }

  /** The report of one render (GET /v1/renders/{id}): a sync render's X-Render-ID, or a job's id. */
  async getRender(id: string, call: CallOptions = {}): Promise<RenderReport> {
    const answer = await this.call(
      `/v1/renders/${encodeURIComponent(id)}`,
      { method: 'GET', headers: { accept: 'application/json' } },
      call,
    );
    return jsonOf<RenderReport>(answer);
  }

  private send(html: string, options: RenderOptions | undefined, call: RenderCallOptions) {
    const request: RenderRequest = options === undefined ? { html } : { html, options };
    return this.post('/v1/render', request, call);
  }

  private post(path: string, request: RenderRequest | AssembleRequest, call: RenderCallOptions) {
    const headers = { 'content-type': 'application/json', ...this.headers(call, path) };
    return this.call(path, { method: 'POST', headers, body: JSON.stringify(request) }, call);
  }

  /** The headers of a POST to `path` but its Content-Type (a form's carries its boundary, which fetch writes). */
  private headers(call: RenderCallOptions, path: string): Record<string, string> {
    // A split assembly answers with a zip; the answer's Content-Type says which came.
    const headers: Record<string, string> = {
      accept: path === '/v1/assemble' ? 'application/pdf, application/zip' : 'application/pdf',
    };
    if (call.strict) headers.prefer = 'handling=strict';
    return headers;
  }

  private call(path: string, init: RequestInit, call: CallOptions) {
    return renderServiceExchange(this.options, path, init, call, DEFAULT_TIMEOUT_MS);
  }
}
