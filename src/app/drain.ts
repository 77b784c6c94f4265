/**
 * Draining: while the app closes, a request that still reaches it (on a keep-alive connection it already
 * holds) gets the service's own 503 instead of Fastify's default body, and answers still sent (requests
 * in flight) end their connection, so a keep-alive client or load balancer cannot hold it open and stall
 * the drain.
 */
import type { Socket } from 'node:net';
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

/** How long after the close begins a connection that has sent nothing yet is still given. */
const FIRST_BYTES_MS = 250;

/**
 * Closes, when the app closes, the connections that never sent a byte. Node's idle-connection close
 * (Fastify's `forceCloseConnections: 'idle'`) passes them over, and the header timeout that would end
 * them stops with the server, so one connection a client opened ahead of need (browsers and undici's
 * pool do) held the close until that client let go: 70 s in a test, the whole grace in a shutdown. A
 * connection that has begun a request is left to finish it, and is answered as a draining app answers.
 */
export function closeUnusedOnClose(app: FastifyInstance): void {
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', async () => {
    // Bytes already on their way (a request sent as the close began) have this long to arrive.
    setTimeout(() => {
      for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
    }, FIRST_BYTES_MS).unref();
  });
}

/** Answers a request that arrived while the app drains: 503 OVERLOADED with Retry-After. */
export function refuseWhileDraining(reply: FastifyReply, service: ApiService, sendError: SendError): void {
  reply.header('Retry-After', String(DRAIN_RETRY_AFTER_S));
  sendError(reply, 503, 'OVERLOADED', `the ${service} service is shutting down; retry shortly`);
}
