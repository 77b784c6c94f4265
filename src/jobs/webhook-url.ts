/**
 * Whether a job's webhook URL may be called: checked at submit (the dispatcher checks again at
 * delivery, where DNS may answer differently). Classification through the render egress policy only;
 * no connection is opened here.
 */
import { charactersOver } from '../accounts/user-text.js';
import { cutText, MAX_QUOTED, quoted } from '../cut-text.js';
import { EgressDenied, type EgressPolicy } from '../net/policy.js';

/** Longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Null when the URL is acceptable, else the message for a 400 INVALID_REQUEST naming `webhook.url`. */
export async function validateWebhookUrl(url: string, policy: EgressPolicy): Promise<string | null> {
  if (charactersOver(url, MAX_WEBHOOK_URL_LENGTH) !== undefined)
    return `webhook.url: longer than ${MAX_WEBHOOK_URL_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'webhook.url: not a URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return `webhook.url: scheme ${quoted(parsed.protocol.slice(0, -1))} is not allowed (only https and http)`;
  }
  if (parsed.username !== '' || parsed.password !== '') return 'webhook.url: must not carry a user name or password';
  try {
    await policy.checkUrl(parsed);
    return null;
  } catch (err) {
    if (err instanceof EgressDenied) return `webhook.url: not reachable under the egress policy: ${err.message}`;
    return `webhook.url: host ${cutText(parsed.hostname, MAX_QUOTED)} could not be resolved`;
  }
}
