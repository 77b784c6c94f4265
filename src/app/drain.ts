/**
 * Draining: while the app closes, a request that still reaches it (on a keep-alive connection it already
 * holds) gets the service's own 503 instead of Fastify's default body, and answers still sent (requests
 * in flight) end their connection, so a keep-alive client or load balancer cannot hold it open and stall
 * the drain.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiService } from '../config.js';
import type { SendError } from '../service-app-type.js';

/** Retry-After of a request refused while draining: another instance (or this one restarted) takes it. */
const DRAIN_RETRY_AFTER_S = 1;

/** Marks the app closing from its preClose on and closes each connection an answer is sent on from then; says whether it is closing. */
export function drainOnClose(app: FastifyInstance): () => boolean {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback-style hook: an async hook costs a promise per request for nothing here.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });
  return () => closing;
}

/** Answers a request that arrived while the app drains: 503 OVERLOADED with Retry-After. */
export function refuseWhileDraining(reply: FastifyReply, service: ApiService, sendError: SendError): void {
  reply.header('Retry-After', String(DRAIN_RETRY_AFTER_S));
  sendError(reply, 503, 'OVERLOADED', `the ${service} service is shutting down; retry shortly`);
}
