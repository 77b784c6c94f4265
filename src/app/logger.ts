import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config.js';
import { REQUEST_SERIALIZERS, redactUrl } from '../redact-url.js';

export { redactUrl } from '../redact-url.js';

/** Header paths that can carry a key or a session; pino replaces them before a line is written. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'res.headers["set-cookie"]',
];

/** Structured JSON logs with keys, cookies and secrets in request URLs redacted. */
export function loggerOptions(config: Pick<Config, 'logLevel'>): LoggerOptions {
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: REQUEST_SERIALIZERS,
  };
}

/**
 * Fastify's request logger over `log`: the same serializers as the process logger, so a request line
 * never carries a secret from the URL even when the core was handed some other pino logger.
 */
export function requestLogger(log: Logger, bindings: Record<string, unknown>): Logger {
  return log.child(bindings, { serializers: REQUEST_SERIALIZERS });
}

/** Whether lines go out human-readable: `LOG_FORMAT=pretty`, or unset with a terminal on the other end. */
export function wantsPrettyLogs(format: Config['logFormat'], out: { isTTY?: boolean }): boolean {
  return format === 'pretty' || (format === 'auto' && out.isTTY === true);
}

// Fields the request line already shows in its text; pino-pretty would repeat them as JSON after it.
const SHOWN_IN_TEXT = ['pid', 'hostname', 'service', 'method', 'url', 'statusCode', 'responseTime', 'reqId'];

/** One line per event: `[render] POST /v1/render 200 812 ms rnd_…`, other events as `[service] message {fields}`. */
function messageFormat(log: Record<string, unknown>, messageKey: string): string {
  const service = typeof log.service === 'string' ? `[${log.service}] ` : '';
  if (typeof log.method === 'string' && typeof log.statusCode === 'number') {
    const ms = typeof log.responseTime === 'number' ? ` ${Math.round(log.responseTime)} ms` : '';
    const id = typeof log.reqId === 'string' ? ` ${log.reqId}` : '';
    return `${service}${log.method} ${String(log.url)} ${log.statusCode}${ms}${id}`;
  }
  return `${service}${String(log[messageKey] ?? '')}`;
}

/**
 * The process logger: JSON on stdout as machines want it, or, for a person at a terminal
 * (see wantsPrettyLogs), pino-pretty's coloured single lines. Redaction applies to both.
 */
export function createLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
): Logger {
  if (!wantsPrettyLogs(config.logFormat, out)) {
    // On stdout, pino's own destination as before (sonic-boom on fd 1); any other stream as given.
    return out === process.stdout ? pino(loggerOptions(config)) : pino(loggerOptions(config), out);
  }
  const stream = pretty({
    destination: out,
    colorize: out.isTTY === true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: SHOWN_IN_TEXT.join(','),
    messageFormat,
    // A person reads this as it happens; the few lines per request do not need batching.
    sync: true,
  });
  return pino(loggerOptions(config), stream);
}

/**
 * One log line per request instead of Fastify's two: no "incoming request" line, and "request completed"
 * (or "request errored") carries the method and URL, and the account once authenticated (bound by
 * `authenticate`), never the key. Flat fields: no serializer pass per line; only the URL is redacted (redactUrl).
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
