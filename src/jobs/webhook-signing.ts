/**
 * Standard Webhooks signatures: `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 * keyed with the base64-decoded part of the account's `whsec_…` secret. Pure functions, no I/O.
 */
import crypto from 'node:crypto';

const PREFIX = 'whsec_';
/** 32 random bytes: above the 24-byte minimum Standard Webhooks asks for. */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + crypto.randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key of a `whsec_…` secret (its base64 part, decoded). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** The `v1,<base64>` signature of one message. */
export function signWebhook(secret: string, id: string, timestampS: number, body: string): string {
  const mac = crypto.createHmac('sha256', secretKey(secret)).update(`${id}.${timestampS}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The three headers of one signed delivery (the timestamp in seconds, as Standard Webhooks has it): one
 * `v1,…` signature per secret, space-separated, so a receiver holding any one of them verifies it.
 */
export function webhookHeaders(
  secrets: string | readonly string[],
  id: string,
  timestampS: number,
  body: string,
): Record<string, string> {
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': keys.map((secret) => signWebhook(secret, id, timestampS, body)).join(' '),
  };
}

/** The event a finished job announces. */
export type WebhookEventType = 'job.succeeded' | 'job.failed';

/** The `webhook-id` of a job's event: fixed per job and event so every retry and duplicate shares it. */
export function webhookMessageId(jobId: string): string {
  return `msg_${jobId}`;
}

/** The JSON body of a job event: `{"type","timestamp","data": <job object>}`. */
export function webhookBody(type: WebhookEventType, at: Date, job: unknown): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data: job });
}
