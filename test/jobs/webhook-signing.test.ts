/**
 * Our signing against the Standard Webhooks specification's known-answer vector (the values of the
 * reference libraries' "sign function works" test, github.com/standard-webhooks/standard-webhooks), and
 * the two-signature header a rotation produces.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook, webhookHeaders } from '../../src/jobs/webhook-signing.js';

const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampS: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('webhook signing', () => {
  it('gives the known answer of the Standard Webhooks test vector', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestampS, VECTOR.payload)).toBe(VECTOR.signature);
    // The secret without its whsec_ prefix is the same key.
    expect(signWebhook(VECTOR.secret.slice(6), VECTOR.id, VECTOR.timestampS, VECTOR.payload)).toBe(VECTOR.signature);
    expect(webhookHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestampS, VECTOR.payload)).toEqual({
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestampS),
      'webhook-signature': VECTOR.signature,
    });
  });

  it('signs with every secret given, space-separated, new first; each verifies alone', () => {
    const other = 'whsec_Y2hhbmdlZCBzZWNyZXQgZm9yIHRoZSB0ZXN0IG9mIHJvdGF0aW9u';
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([other, VECTOR.secret], VECTOR.id, now, VECTOR.payload);
    const [first, second] = headers['webhook-signature']?.split(' ') ?? [];
    expect(first).toBe(signWebhook(other, VECTOR.id, now, VECTOR.payload));
    expect(second).toBe(signWebhook(VECTOR.secret, VECTOR.id, now, VECTOR.payload));
    expect(new Webhook(other).verify(VECTOR.payload, headers)).toEqual({ test: 2432232314 });
    expect(new Webhook(VECTOR.secret).verify(VECTOR.payload, headers)).toEqual({ test: 2432232314 });
  });
});
