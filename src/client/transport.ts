/**
 * One HTTP exchange with a Pageworks service, tried again per the retry policy, with a per-try timeout
 * and the caller's AbortSignal.
 *
 * It uses the global fetch (undici) on purpose and not src/net/: that module is the services' egress
 * policy for requests to user-chosen addresses; this client runs in the integrator's process and talks
 * to their own Pageworks deployment.
 */
import type { ClientErrorCode, PageworksError } from './errors.js';
import { isRetryable, nextDelay, parseRetryAfter, type RetryListener, type RetryOptions, retryPolicy, sleep } from './retry.js';

/** Options shared by both clients. */
export interface ClientOptions {
  /** Base address of the service, e.g. `http://127.0.0.1:3001`. */
  baseUrl: string;
  /** A key of this service (`pwr_live_…` for render, `pwm_live_…` for metadata). */
  apiKey: string;
  /** Time allowed for one try until the answer's head (and, for buffered answers, its whole body). */
  timeoutMs?: number;
  /** Retry on 429 and 503; `false` turns it off. */
  retry?: RetryOptions | false;
  /** Told before each wait between tries. */
  onRetry?: RetryListener;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call, waits between tries included; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this call. */
  timeoutMs?: number;
}

/** What a service-specific client tells the transport. */
export interface Exchange<E extends PageworksError> {
  url: string;
  init: RequestInit;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  options: ClientOptions;
  /** The answer's id header (X-Render-ID or X-Request-ID). */
  idHeader: string;
  /** Builds the error of a non-2xx answer from its status and body text. */
  serviceError: (status: number, body: string, requestId: string | undefined, retryAfterS: number | undefined) => E;
  /** Builds a client-side error (timeout, network, unreadable answer). */
  clientError: (code: ClientErrorCode, message: string, cause?: unknown) => E;
}

/** A 2xx answer whose per-try timer still runs until `settle()`, plus the mapping of read failures. */
export interface Answer {
  response: Response;
  requestId: string | undefined;
  /** Stops the per-try timer: after the body is read, or at once for a stream. */
  settle: () => void;
  /** Turns an error thrown while reading the body into the client's error (or the caller's abort reason). */
  failure: (err: unknown) => unknown;
}

class TryTimedOut extends Error {}

/** Sends the request, retrying 429/503 per policy; resolves with the first 2xx answer or rejects with a typed error. */
export async function exchange<E extends PageworksError>(x: Exchange<E>): Promise<Answer> {
  const policy = retryPolicy(x.options.retry);
  let waitedMs = 0;
  for (let attempt = 1; ; attempt++) {
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new TryTimedOut()), x.timeoutMs);
    const signal = x.signal ? AbortSignal.any([x.signal, timer.signal]) : timer.signal;
    const settle = () => clearTimeout(timeout);
    const failure = (err: unknown): unknown => {
      settle();
      if (x.signal?.aborted) return x.signal.reason;
      if (timer.signal.aborted) return x.clientError('TIMEOUT', `no complete answer within ${x.timeoutMs} ms`, err);
      return x.clientError('NETWORK_ERROR', `request to ${new URL(x.url).origin} failed: ${(err as Error).message}`, err);
    };
    let response: Response;
    try {
      response = await fetch(x.url, { ...x.init, signal });
    } catch (err) {
      throw failure(err);
    }
    const requestId = response.headers.get(x.idHeader) ?? undefined;
    if (response.ok) return { response, requestId, settle, failure };

    let body: string;
    try {
      body = await response.text();
    } catch (err) {
      throw failure(err);
    }
    settle();
    const retryAfterS = parseRetryAfter(response.headers.get('retry-after'));
    const error = x.serviceError(response.status, body, requestId, retryAfterS);
    const delay = isRetryable(response.status) ? nextDelay(policy, attempt, waitedMs, retryAfterS) : undefined;
    if (delay === undefined) throw error;
    x.options.onRetry?.({ attempt, status: response.status, code: error.code, delayMs: delay });
    await sleep(delay, x.signal);
    waitedMs += delay;
  }
}

/** The JSON body of an answer (its failure when the body cannot be read), settling the answer either way. */
export async function jsonOf<T>(answer: Answer): Promise<T> {
  try {
    return (await answer.response.json()) as T;
  } catch (err) {
    throw answer.failure(err);
  } finally {
    answer.settle();
  }
}

/** `base` + `path` whatever the trailing slash of `base`. */
export function endpoint(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
