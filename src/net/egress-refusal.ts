/**
 * What a render's report says about a request the egress proxy did not carry: the policy refused it,
 * or its server could not be reached. The proxy notes these; the report collector and the render
 * attempt read them, so the words live apart from the proxy that finds them.
 */

/** Why the proxy did not carry a request: the policy refused it, or its server could not be reached. */
export type RefusalReason = 'private_address' | 'unresolvable' | 'scheme' | 'too_large' | 'refused' | 'reset' | 'timeout';

/**
 * A request the proxy refused or could not carry, for the render report: `target` is the URL of a plain
 * http request, or `host:port` of a tunnel (https, wss), which is all the proxy sees of those.
 */
export interface EgressRefusal {
  target: string;
  reason: RefusalReason;
}

/** How an upstream connection failed, in the report's words. */
export function failureOf(err: unknown): RefusalReason {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ETIMEDOUT' || /timeout/i.test(String((err as Error)?.message))) return 'timeout';
  return 'reset';
}
