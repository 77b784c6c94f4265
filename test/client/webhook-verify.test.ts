import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../src/client/index.js';
import { newWebhookSecret, webhookBody, webhookHeaders, webhookMessageId } from '../../src/jobs/webhook-signing.js';

const job = {
  id: 'job_abc',
  status: 'succeeded',
  reference: 'inv-7',
  created_at: '2026-01-02T03:04:05.000Z',
  started_at: '2026-01-02T03:04:05.100Z',
  finished_at: '2026-01-02T03:04:06.000Z',
  attempts: 1,
  error: null,
  pdf: { bytes: 1234, pages: 1, url: 'http://127.0.0.1:1/v1/jobs/job_abc/pdf', expires_at: '2026-01-03T03:04:06.000Z' },
};

describe('verifyWebhook (client, Node crypto only)', () => {
  it('accepts what the standardwebhooks package signs', () => {
    const secret = newWebhookSecret();
    const body = webhookBody('job.succeeded', new Date(), job);
    const at = new Date();
    const signature = new Webhook(secret).sign('msg_job_abc', at, body);
    const headers = {
      'webhook-id': 'msg_job_abc',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const event = verifyWebhook(secret, headers, body);
    expect(event.type).toBe('job.succeeded');
    expect(event.data).toEqual(job);
    // Same through a fetch Headers object and a Buffer body.
    expect(verifyWebhook(secret, new Headers(headers), Buffer.from(body)).data.id).toBe('job_abc');
  });

  it('accepts what the server signs, and so does the standardwebhooks package', () => {
    const secret = newWebhookSecret();
    const body = webhookBody('job.failed', new Date(), { ...job, status: 'failed', pdf: null });
    const headers = webhookHeaders(secret, webhookMessageId(job.id), Math.floor(Date.now() / 1000), body);
    expect(headers['webhook-id']).toBe('msg_job_abc');
    expect(verifyWebhook(secret, headers, body).type).toBe('job.failed');
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('accepts a header listing several signatures when one matches (secret rotation)', () => {
    const secret = newWebhookSecret();
    const body = webhookBody('job.succeeded', new Date(), job);
    const headers = webhookHeaders(secret, 'msg_x', Math.floor(Date.now() / 1000), body);
    const other = webhookHeaders(newWebhookSecret(), 'msg_x', Number(headers['webhook-timestamp']), body);
    headers['webhook-signature'] = `${other['webhook-signature']} ${headers['webhook-signature']}`;
    expect(verifyWebhook(secret, headers, body).data.id).toBe('job_abc');
  });

  it('refuses an altered body, another secret, an old timestamp and missing headers', () => {
    const secret = newWebhookSecret();
    const body = webhookBody('job.succeeded', new Date(), job);
    const now = Date.now();
    const headers = webhookHeaders(secret, 'msg_job_abc', Math.floor(now / 1000), body);
    const fails = (fn: () => unknown, message: string) => {
      expect(fn).toThrow(WebhookVerificationError);
      expect(fn).toThrow(message);
    };
    fails(() => verifyWebhook(secret, headers, body.replace('inv-7', 'inv-8')), 'no matching signature');
    fails(() => verifyWebhook(newWebhookSecret(), headers, body), 'no matching signature');
    fails(() => verifyWebhook(secret, headers, body, { now: now + 301_000 }), 'too old');
    fails(() => verifyWebhook(secret, { 'webhook-id': 'msg_job_abc' }, body), 'missing');
    // The package refuses the same altered body: both sides agree on what a valid delivery is.
    expect(() => new Webhook(secret).verify(body.replace('inv-7', 'inv-8'), headers)).toThrow();
  });
});
