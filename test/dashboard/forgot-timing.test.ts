/**
 * "Forgot password?" must not tell which addresses have accounts, not even through the latency of the
 * request that follows it: the work a known address causes (lookup, token, mail) happens later, at a
 * random moment, and an unknown address causes the same kind of work.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { MailCatcher } from '../helpers/smtp.js';
import { sleep } from '../scale/backends.js';
import { freshIp } from './client.js';

const PAIRS = 50;

let catcher: MailCatcher;
let core: CoreDeps;
let app: FastifyInstance;

beforeAll(async () => {
  catcher = await MailCatcher.start();
  core = await createTestCore({ SMTP_URL: catcher.url });
  app = await buildDashboardApp(core);
});
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  await catcher?.close();
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

describe('forgot-password timing', () => {
  it('the request after a known address is as fast as the one after an unknown address', async () => {
    const run = crypto.randomBytes(3).toString('hex');
    const known: string[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const email = `known${i}-${run}@example.com`;
      await core.store.createAccount({
        id: `acc_${crypto.randomBytes(16).toString('hex')}`,
        email,
        passwordHash: null,
        createdAt: Date.now(),
      });
      known.push(email);
    }
    // Real HTTP on a real port: the server's event loop is what leaks, and the client must not share
    // its turns. Each "browser" asks from its own loopback address (the reset throttle counts per IP)
    // and holds its form cookie and token; the request that follows comes on a kept-alive connection.
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (path: string, opts: { method?: string; body?: string; cookie?: string; from?: string } = {}) =>
      new Promise<{ status: number; body: string; cookies: string[] }>((resolve, reject) => {
        const req = http.request(
          `${origin}${path}`,
          {
            method: opts.method ?? 'GET',
            ...(opts.from ? { localAddress: opts.from, agent: false } : { agent: keepAlive }),
            headers: {
              ...(opts.cookie ? { cookie: opts.cookie } : {}),
              ...(opts.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                body: Buffer.concat(chunks).toString('utf8'),
                cookies: (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0] ?? ''),
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(opts.body);
      });
    const browser = async () => {
      const from = freshIp();
      const page = await send('/forgot-password', { from });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
      return { from, csrf, cookie: page.cookies.join('; ') };
    };
    const answeredAt = new Map<string, number>();
    const sample = async (email: string) => {
      const b = await browser();
      const body = new URLSearchParams({ _csrf: b.csrf, email }).toString();
      const res = await send('/forgot-password', { method: 'POST', body, cookie: b.cookie, from: b.from });
      expect(res.status).toBe(200);
      const started = performance.now();
      answeredAt.set(email, started);
      expect((await send('/login')).status).toBe(200);
      return performance.now() - started;
    };
    // Warm-up: first requests pay for compiling code paths.
    for (let i = 0; i < 5; i++) await sample(`warmup${i}-${run}@example.org`);

    const afterKnown: number[] = [];
    const afterUnknown: number[] = [];
    // Pairs in which the request after the known address was the slower one.
    let knownSlower = 0;
    for (let i = 0; i < PAIRS; i++) {
      const unknown = `nobody${i}-${run}@example.org`;
      // Random order inside each pair: drift in the machine's load falls on both sides alike.
      if (Math.random() < 0.5) {
        afterKnown.push(await sample(known[i] ?? ''));
        await sleep(20);
        afterUnknown.push(await sample(unknown));
      } else {
        afterUnknown.push(await sample(unknown));
        await sleep(20);
        afterKnown.push(await sample(known[i] ?? ''));
      }
      const last = afterKnown.length - 1;
      if ((afterKnown[last] ?? 0) > (afterUnknown[last] ?? 0)) knownSlower++;
      await sleep(20);
    }
    keepAlive.destroy();
    const medians = { known: median(afterKnown), unknown: median(afterUnknown) };
    console.log(
      `next-request latency over ${PAIRS} pairs: median after a known address ${medians.known.toFixed(2)} ms, ` +
        `after an unknown one ${medians.unknown.toFixed(2)} ms; the known one slower in ${knownSlower} of ${PAIRS} pairs`,
    );
    // Which side of a pair goes first is a coin toss, so without a leak the slower side of each pair is a
    // fair coin whatever the machine's load does, and 11..39 of 50 leaves 2.4e-5 to chance. (A Mann–Whitney
    // AUC over all 50 × 50 comparisons has no such exact law under changing load; it read 0.72 against a
    // 0.7 bound in one CI run of this code.)
    expect(knownSlower).toBeGreaterThanOrEqual(11);
    expect(knownSlower).toBeLessThanOrEqual(39);
    // Medians of 50 move by milliseconds when other work shares the two cores (3.6 ms apart at 5.7 ms, at
    // load 12); the old leak moved them by ten (mail sent right behind the answer: 11.6 ms against 1.1 ms).
    expect(Math.abs(medians.known - medians.unknown)).toBeLessThan(Math.max(5, 0.75 * Math.max(medians.known, medians.unknown)));

    // The mails did go out: the work was moved, not skipped. And moved well past the next request: the
    // median mail is begun (its SMTP connection opened) 1.6 s or so after its answer, the jitter's
    // middle. Sent right behind the answer, it opens its connection about 100 ms after it here, and
    // the requests above, on a quiet machine, move by only 0.5 ms (the known side slower in 32 to 39
    // pairs of 50): too little for them to tell, so this is what catches it.
    const delays: number[] = [];
    for (const email of known) {
      const [mail] = await catcher.waitFor(email, 1);
      delays.push(catcher.sentFrom(mail as ParsedMail) - (answeredAt.get(email) ?? Number.NaN));
    }
    expect(median(delays)).toBeGreaterThanOrEqual(500);
    expect(catcher.mails.filter((m) => JSON.stringify(m.to).includes(`-${run}@example.org`))).toEqual([]);
  }, 120_000);
});
