/** How every client of the render service (renders, assemblies, jobs, certificates) sends one call. */
import { type ClientErrorCode, RenderApiError, renderApiErrorOf } from './errors.js';
import { type Answer, type CallOptions, type ClientOptions, endpoint, exchange } from './transport.js';

/**
 * Sends `init` to `path` of the render service with the API key, the call's timeout (else the client's, else
 * `defaultTimeoutMs`) and retries; its errors are RenderApiError, with the render id where the service gave one.
 */
export function renderServiceExchange(
  options: ClientOptions,
  path: string,
  init: RequestInit,
  call: CallOptions,
  defaultTimeoutMs: number,
): Promise<Answer> {
  return exchange({
    url: endpoint(options.baseUrl, path),
    init: { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${options.apiKey}` } },
    timeoutMs: call.timeoutMs ?? options.timeoutMs ?? defaultTimeoutMs,
    signal: call.signal,
    options,
    idHeader: 'x-render-id',
    serviceError: renderApiErrorOf,
    clientError: (code: ClientErrorCode, message: string, cause?: unknown) =>
      new RenderApiError(code, message, undefined, undefined, undefined, { cause }),
  });
}
