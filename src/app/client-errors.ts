/**
 * Answers to requests Node's HTTP server refuses before Fastify sees them (headers too large, too slow,
 * not HTTP), in the service's own error shape instead of Fastify's default body, with a request id as
 * every other answer has.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { ApiService } from '../config.js';
import type { RenderErrorCode } from '../errors.js';
import { randomRequestId, requestIdPrefix } from './request-ids.js';

/** What the server refused, as a status, a render error code and a message a client can act on. */
function refusal(err: NodeJS.ErrnoException): [status: number, code: RenderErrorCode, message: string] {
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return [431, 'HEADERS_TOO_LARGE', 'the request headers are larger than this server accepts; send fewer or shorter headers'];
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'REQUEST_TIMEOUT', 'the request was not received in time'];
  return [400, 'INVALID_REQUEST', 'the request is not valid HTTP/1.1'];
}

/**
 * A Fastify `clientErrorHandler` answering in `service`'s error shape (`{"error":{"code","message"}}` or
 * `{"detail"}`) with a fresh request id in `requestIdHeader` (X-Render-ID, X-Request-ID).
 */
export function clientErrorHandler(service: ApiService, requestIdHeader: string) {
  const idPrefix = requestIdPrefix(service);
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    // A connection reset has nothing left to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      const [status, code, message] = refusal(err);
      const body = JSON.stringify(service === 'metadata' ? { detail: message } : { error: { code, message } });
      socket.write(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\n${requestIdHeader}: ${randomRequestId(idPrefix)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(err);
  };
}
