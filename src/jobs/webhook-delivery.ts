/**
 * One webhook delivery attempt, through the one egress policy: the URL is checked and resolved at
 * delivery time (not only at submit), and the connection goes to the address that was checked, so a
 * host that re-resolves to a private address between submit and delivery (DNS rebinding) is refused.
 *
 * A receiver cannot hold the caller: one deadline covers resolution, connection, request and response
 * head; redirects are not followed (a 3xx is a failed attempt); at most a few KiB of the response body
 * are read, then the connection is dropped.
 */
import type { Dispatcher } from 'undici';
import { abortable, Cancellation } from '../net/cancellation.js';
import { pinnedDispatch } from '../net/pinned-agent.js';
import { EgressDenied, type EgressPolicy } from '../net/policy.js';

/** What one attempt needs. */
export interface DeliveryRequest {
  policy: EgressPolicy;
  agent: Dispatcher;
  url: string;
  /** The signed Standard Webhooks headers. */
  headers: Record<string, string>;
  body: string;
  /** Whole-attempt deadline; 10 s unless a test says otherwise. */
  timeoutMs?: number;
  userAgent?: string;
}

/** How one attempt ended. */
export interface DeliveryResult {
  /** A 2xx answer arrived within the deadline. */
  delivered: boolean;
  /** The receiver's status, or null when none arrived. */
  statusCode: number | null;
  /** Why the attempt failed (safe to show the account), or null when delivered. */
  error: string | null;
  durationMs: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Bytes of a receiver's answer body that are read (and dropped) before the connection is cut. */
export const RESPONSE_READ_LIMIT = 4096;

class DeliveryTimeout extends Error {}

/** A short account-facing reason for a failed attempt. */
function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof DeliveryTimeout) return `no answer within ${timeoutMs / 1000} s`;
  if (err instanceof EgressDenied) return `refused by the egress policy: ${err.message}`;
  const e = err as { code?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host could not be resolved';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection closed by the receiver';
  if (code.startsWith('ERR_TLS') || code.includes('CERT')) return 'TLS handshake failed';
  return 'request failed';
}

/** Posts one signed event and reports the outcome; never throws. */
export async function deliverWebhook(req: DeliveryRequest): Promise<DeliveryResult> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = performance.now();
  const cancel = new Cancellation();
  // The timer outlives the answer head on purpose: it also cuts a body that trickles in forever.
  const timer = setTimeout(() => cancel.abort(new DeliveryTimeout()), timeoutMs);
  timer.unref();
  const elapsed = (): number => Math.round(performance.now() - started);
  try {
    const target = await abortable(req.policy.checkUrl(req.url), cancel);
    const res = await pinnedDispatch(req.agent, target, {
      method: 'POST',
      headers: {
        ...req.headers,
        'content-type': 'application/json',
        'user-agent': req.userAgent ?? 'Pageworks-Webhooks/1',
      },
      body: req.body,
      cancel,
      headersTimeoutMs: timeoutMs,
      bodyTimeoutMs: timeoutMs,
    });
    // Nothing in the answer body matters; a little is read so a small answer keeps the socket reusable.
    res.body.dump(RESPONSE_READ_LIMIT);
    const status = res.statusCode;
    const delivered = status >= 200 && status < 300;
    const error = delivered
      ? null
      : status >= 300 && status < 400
        ? `redirect (${status}) not followed`
        : `receiver answered ${status}`;
    return { delivered, statusCode: status, error, durationMs: elapsed() };
  } catch (err) {
    clearTimeout(timer);
    cancel.abort(new Error('delivery failed'));
    return { delivered: false, statusCode: null, error: describeFailure(err, timeoutMs), durationMs: elapsed() };
  }
}
