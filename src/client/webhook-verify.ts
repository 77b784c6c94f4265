/**
 * Verifies a Standard Webhooks delivery from Pageworks with Node's crypto only: the HMAC-SHA256 of
 * `id.timestamp.body` under the base64-decoded `whsec_…` secret, compared in constant time, and a
 * timestamp within the tolerance (replays of old deliveries are refused).
 */
import crypto from 'node:crypto';
import type { JobObject } from './jobs-types.js';

/** A webhook that is not from Pageworks, was altered, or is too old. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** A verified job event. */
export interface JobEvent {
  type: 'job.succeeded' | 'job.failed';
  /** RFC 3339 time of the event. */
  timestamp: string;
  data: JobObject;
}

/** Headers as Node's http, Fastify, Express (a plain object) or fetch (a Headers object) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** Options of verifyWebhook. */
export interface VerifyOptions {
  /** Largest accepted distance between the delivery's timestamp and now (default 300 s). */
  toleranceS?: number;
  /** The current time in ms, for tests. */
  now?: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks the signature and age of a delivery and returns its parsed event; throws WebhookVerificationError.
 * `body` must be the raw request body exactly as received (not re-serialised JSON).
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Buffer,
  opts: VerifyOptions = {},
): JobEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  const nowS = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(nowS - Number(timestamp)) > (opts.toleranceS ?? 300))
    throw new WebhookVerificationError('webhook-timestamp is too old or too new');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${text}`).digest();
  // The header may list several space-separated signatures (a sender rotating its secret signs with both).
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no matching signature');
  try {
    return JSON.parse(text) as JobEvent;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}
