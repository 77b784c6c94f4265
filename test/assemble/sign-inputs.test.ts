/**
 * What a request or the operator gives a signature that must not break it: a reason, location and contact
 * that spell the signature's own placeholders (pdfsig still finds it valid), a protect password with a line
 * break or NUL (400 before any part is rendered, not a 500 after), and a SIGN_TSA_URL the egress policy
 * refuses (a start-up error naming the variable, not a 500 on every signature).
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config-env.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { page, postAssemble, tinyPdf, uploadCertificate } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let alice: { accountId: string; key: string };
let certificate = '';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-sign-inputs-'));

beforeAll(async () => {
  const certs = makeTestCertificates();
  core = await createTestCore({ CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex') });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  alice = await createKey(core, 'render');
  certificate = await uploadCertificate(app, alice.key, certs.rsaChain, certs.password);
}, 180_000);
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  fs.rmSync(work, { recursive: true, force: true });
});

function pdfsig(pdf: Buffer): string {
  const file = path.join(work, `${crypto.randomBytes(4).toString('hex')}.pdf`);
  fs.writeFileSync(file, pdf);
  const run = spawnSync('pdfsig', [file], { encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`;
}

/** The signature dictionary as `qpdf --json` shows it (text strings as `u:…`). */
function signatureDictionary(pdf: Buffer): Record<string, unknown> {
  const file = path.join(work, `${crypto.randomBytes(4).toString('hex')}.pdf`);
  fs.writeFileSync(file, pdf);
  const json = JSON.parse(spawnSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8' }).stdout);
  const objects = Object.values(json.qpdf[1] as Record<string, { value?: Record<string, unknown> }>);
  const sig = objects.find((o) => o.value?.['/Type'] === '/Sig');
  if (!sig?.value) throw new Error('no signature dictionary');
  return sig.value;
}

describe('sign: reason, location and contact', () => {
  it('cannot break the signature, even when they spell its /ByteRange and /Contents placeholders', async () => {
    const reason = '[0 0000000000 0000000000 0000000000]';
    const location = '/Contents <00> (Lyon)';
    const contact = 'a\\b ) ( /ByteRange [0 0 0 0]\nnext line';
    const res = await postAssemble(app, alice.key, {
      parts: [{ pdf: tinyPdf('Contract').toString('base64') }],
      sign: { certificate, reason, location, contact },
    });
    expect(res.statusCode, res.body).toBe(200);
    const checked = pdfsig(res.rawPayload);
    expect(checked).toContain('Signature is Valid');
    expect(checked).toContain('Total document signed');
    // This pdfsig does not print them: qpdf reads them back from the signature dictionary.
    const sig = signatureDictionary(res.rawPayload);
    expect(sig['/Reason']).toBe(`u:${reason}`);
    expect(sig['/Location']).toBe(`u:${location}`);
    expect(sig['/ContactInfo']).toBe(`u:${contact}`);
  }, 60_000);
});

describe('protect: passwords', () => {
  for (const [what, password] of [
    ['a line break', 'open\nsesame'],
    ['a NUL', 'open\0sesame'],
  ] as const) {
    it(`refuses ${what} in a password with a 400 before rendering any part`, async () => {
      const res = await postAssemble(app, alice.key, {
        parts: [{ html: page('Statement') }, { pdf: tinyPdf('Terms').toString('base64') }],
        protect: { owner_password: 'owner secret', user_password: password },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toEqual({
        code: 'INVALID_REQUEST',
        message: 'protect.user_password: must not contain a line break or NUL',
      });
    }, 60_000);
  }
});

describe('SIGN_TSA_URL', () => {
  it('refuses at start-up an authority the egress policy would refuse, naming the variable, without a DNS query', () => {
    for (const [url, why] of [
      ['http://10.1.2.3/tsa', 'host 10.1.2.3 is private'],
      ['http://127.0.0.1:3180/', 'host 127.0.0.1 is loopback'],
      ['http://localhost:3180/', 'host localhost is loopback'],
      ['http://[::1]/', 'host ::1 is loopback'],
    ]) {
      let error: unknown;
      try {
        loadConfig({ SIGN_TSA_URL: url });
      } catch (e) {
        error = e;
      }
      expect(error, url).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        `SIGN_TSA_URL: ${why}, which the egress policy refuses (name a public timestamp authority, or add it to EGRESS_ALLOW)`,
      );
    }
    expect(() => loadConfig({ SIGN_TSA_URL: 'file:///etc/tsa' })).toThrow(/^SIGN_TSA_URL: scheme "file:" is not allowed/);
    // What the operator allows, and a public name, start.
    expect(loadConfig({ SIGN_TSA_URL: 'http://127.0.0.1:3180/', EGRESS_ALLOW: '127.0.0.1' }).signTsaUrl).toBe(
      'http://127.0.0.1:3180/',
    );
    expect(loadConfig({ SIGN_TSA_URL: 'https://tsa.example.com/' }).signTsaUrl).toBe('https://tsa.example.com/');
  });
});
