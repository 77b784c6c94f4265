import type { LoggerOptions } from 'pino';
import type { Config } from '../config.js';

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

/** Structured JSON logs with keys and cookies redacted. */
export function loggerOptions(config: Pick<Config, 'logLevel'>): LoggerOptions {
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
}
