/**
 * Usage: every answer to an authenticated, metered request counts once for its account and key (an
 * assembly once per part), by outcome, when the answer has been sent (reads of a job's state do not count).
 */
import type { FastifyInstance } from 'fastify';
import { outcomeOf, type UsageRecorder } from '../accounts/usage.js';
import type { ApiService } from '../config.js';

/** Records the usage of each metered request of `service` once its answer is sent. */
export function recordUsage(app: FastifyInstance, usage: Pick<UsageRecorder, 'record'>, service: ApiService): void {
  // Callback-style hook: an async hook costs a promise per request for nothing here.
  app.addHook('onResponse', (request, reply, done) => {
    if (request.auth && request.auth.metered !== false)
      usage.record(request.auth.accountId, service, outcomeOf(reply.statusCode, service), request.auth.keyId, request.auth.units);
    done();
  });
}
