/**
 * RFC 3161 timestamps from the authority SIGN_TSA_URL names, reached like every other outbound call
 * through the egress policy (checked and pinned address, the SSRF-safe agent), with a deadline and a
 * cap on the answer's size.
 */
import crypto from 'node:crypto';
import type { Dispatcher } from 'undici';
import { abortable, Cancellation } from '../../net/cancellation.js';
import { pinnedDispatch } from '../../net/pinned-agent.js';
import type { EgressPolicy } from '../../net/policy.js';
import { type Timestamper, timestampRequest, tokenOfResponse } from './cms.js';

/** Largest timestamp answer read (a token with its authority's chain is a few KiB). */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** A timestamp authority that could not give a timestamp; the message says why (no internals). */
export class TimestampError extends Error {
  override name = 'TimestampError';
}

/** A Timestamper posting RFC 3161 requests to `url` through `policy` and `agent`, within `timeoutMs`. */
export function rfc3161Timestamper(url: string, policy: EgressPolicy, agent: Dispatcher, timeoutMs = 10_000): Timestamper {
  return async (signature) => {
    const cancel = new Cancellation();
    const timer = setTimeout(() => cancel.abort(new TimestampError(`no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    try {
      const target = await abortable(policy.checkUrl(url), cancel);
      const res = await pinnedDispatch(agent, target, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
        body: timestampRequest(signature, crypto.randomBytes(8)),
        cancel,
        headersTimeoutMs: timeoutMs,
        bodyTimeoutMs: timeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      await res.body.read((chunk) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          res.body.destroy();
          throw new TimestampError(`answer larger than ${MAX_RESPONSE_BYTES} bytes`);
        }
        chunks.push(chunk);
      });
      if (res.statusCode !== 200) throw new TimestampError(`the authority answered ${res.statusCode}`);
      return tokenOfResponse(Buffer.concat(chunks));
    } catch (error) {
      if (error instanceof TimestampError) throw error;
      throw new TimestampError(reasonOf(error), { cause: error });
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * Why a call to the authority failed, in words that may reach a customer: a socket's error by its code
 * alone (its message names the authority's address), an answer that is not a timestamp by what it was.
 */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return `it could not be reached (${code})`;
  return (error as Error).message;
}
