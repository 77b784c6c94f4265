/**
 * LOG_FORMAT: pino-pretty's readable lines for a terminal, JSON for everything else, keys redacted in both.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logger.js';
import { loadConfig } from '../../src/config.js';

/** A stream that says it is (or is not) a terminal and keeps what is written to it. */
function sink(isTTY: boolean): { out: PassThrough & { isTTY?: boolean }; text: () => string } {
  const out: PassThrough & { isTTY?: boolean } = new PassThrough();
  out.isTTY = isTTY;
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  return { out, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Logs one request line as Fastify's request logger would (service binding, reqId, request fields). */
function logRequest(format: string | undefined, isTTY: boolean): string {
  const config = loadConfig(format === undefined ? {} : { LOG_FORMAT: format });
  const { out, text } = sink(isTTY);
  const log = createLogger(config, out).child({ service: 'render' }).child({ reqId: 'rnd_0123456789abcdef01234567' });
  log.info({ method: 'POST', url: '/v1/render', statusCode: 200, responseTime: 811.6 }, 'request completed');
  log.info({ headers: { authorization: 'Bearer pwr_live_secret' } }, 'something with a key');
  return text();
}

// ANSI colour codes, stripped to read the text.
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

describe('log format', () => {
  it('is readable single lines with colours on a terminal when LOG_FORMAT is unset', () => {
    const text = logRequest(undefined, true);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(text).toContain('\u001b['); // coloured
    expect(plain(lines[0])).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[render\] POST \/v1\/render 200 812 ms rnd_0123456789abcdef01234567$/,
    );
    expect(plain(lines[1])).toMatch(/INFO: \[render\] something with a key \{.*"authorization":"\[redacted\]"/);
    expect(text).not.toContain('pwr_live_secret');
  });

  it('is pretty with LOG_FORMAT=pretty even without a terminal (no colours then)', () => {
    const text = logRequest('pretty', false);
    expect(text).not.toContain('\u001b[');
    expect(text.split('\n')[0]).toMatch(/INFO: \[render\] POST \/v1\/render 200 812 ms/);
  });

  it('is JSON with LOG_FORMAT=json on a terminal, and JSON when unset without one', () => {
    for (const [format, tty] of [
      ['json', true],
      [undefined, false],
    ] as const) {
      const lines = logRequest(format, tty).trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      const first = JSON.parse(lines[0]);
      expect(first).toMatchObject({ level: 30, service: 'render', method: 'POST', statusCode: 200, msg: 'request completed' });
      expect(JSON.parse(lines[1]).headers.authorization).toBe('[redacted]');
    }
  });
});
