/**
 * The HTTP server limits every service shares, against clients that hold connections open without
 * finishing a request (slow-loris headers, a trickled body) or without sending one (idle keep-alive).
 */
import type http from 'node:http';
import type { Config } from '../config.js';

/** How often Node checks open connections against the header and request timeouts (its default is 30 s). */
const CHECK_INTERVAL_MS = 1000;
/**
 * Idle keep-alive connections are closed after this; above the 60 s idle timeout of common load
 * balancers, so the balancer, not the service, closes an idle connection first (Fastify's default).
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * The Fastify server options every service shares: how long a client may take to send its request,
 * and which proxies' `X-Forwarded-For`/`-Proto` decide `request.ip` and `request.protocol`.
 */
export function httpServerLimits(config: Config): {
  trustProxy: string[] | false;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
  http: http.ServerOptions;
} {
  return {
    // Only the listed proxies: with none, a client's own X-Forwarded-For is ignored, so it cannot choose
    // the address its throttles, sessions and activity entries are recorded under.
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    // Until the whole request (headers and body) has arrived; the handler's time (a render) is not counted.
    requestTimeout: config.httpRequestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // No socket inactivity timeout: a connection is silent while its render waits and runs (up to the
    // queue wait plus RENDER_TIMEOUT_MS), and the two timeouts above already bound what a client controls.
    connectionTimeout: 0,
    http: { headersTimeout: config.httpHeadersTimeoutMs, connectionsCheckingInterval: CHECK_INTERVAL_MS },
  };
}
