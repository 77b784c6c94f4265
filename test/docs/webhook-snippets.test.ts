/**
 * docs/api.md's webhook verification snippets (```js blocks) run as written, in a child Node on the
 * built package: each is put in a handler that gets a delivery signed by the server's signing code, once
 * as sent and once with its body altered, and must accept the one and refuse the other.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { newWebhookSecret, webhookBody, webhookHeaders } from '../../src/jobs/webhook-signing.js';

const docs = fs.readFileSync(path.resolve('docs/api.md'), 'utf8');
const snippets = [...docs.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
// `@pageworks/client` is pointed at the built client (dist/client/), the code the package is built from;
// the scratch files sit in test-artifacts/ (ignored by git).
fs.mkdirSync(path.resolve('test-artifacts'), { recursive: true });
const work = fs.mkdtempSync(path.join(path.resolve('test-artifacts'), 'snippets-'));

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A module running the snippet as the body of a handler over one delivery; prints what the handler did. */
function program(snippet: string, delivery: { headers: Record<string, string>; body: string }): string {
  const lines = snippet.split('\n');
  const client = JSON.stringify(pathToFileURL(path.resolve('dist/client/index.js')).href);
  const imports = lines.filter((l) => l.startsWith('import ')).map((l) => l.replace("'@pageworks/client'", client));
  const body = lines.filter((l) => !l.startsWith('import ')).join('\n');
  return `${imports.join('\n')}
const request = { headers: ${JSON.stringify(delivery.headers)} };
const rawBody = ${JSON.stringify(delivery.body)};
let status = 200;
const reply = { code(s) { status = s; return { send() {} }; } };
const log = console.log;
console.log = (...args) => log('logged', ...args);
async function handler() {
${body}
}
try { await handler(); log('status', status); } catch (err) { log('threw', err.message); }
`;
}

describe('webhook verification snippets in docs/api.md', () => {
  it('finds both (standardwebhooks and the client)', () => {
    expect(snippets).toHaveLength(2);
    expect(snippets[0]).toContain("from 'standardwebhooks'");
    expect(snippets[1]).toContain("from '@pageworks/client'");
  });

  it.each(snippets.map((s, i) => [i, s] as const))(
    'snippet %i accepts a real delivery and refuses an altered one',
    async (i, snippet) => {
      const secret = newWebhookSecret();
      const job = {
        id: 'job_0123456789abcdef0123456789abcdef',
        status: 'succeeded',
        pdf: { url: 'http://127.0.0.1/v1/jobs/x/pdf' },
        warnings: [
          {
            kind: 'resource_failed',
            url: 'http://127.0.0.1:8080/logo.png',
            status: 404,
            message: 'logo.png was not loaded: its server answered HTTP 404',
          },
        ],
      };
      const body = webhookBody('job.succeeded', new Date(), job);
      const headers = webhookHeaders(secret, `msg_${job.id}`, Math.floor(Date.now() / 1000), body);
      const run = async (delivery: { headers: Record<string, string>; body: string }) => {
        const file = path.join(work, `snippet-${i}-${Math.random().toString(16).slice(2)}.mjs`);
        fs.writeFileSync(file, program(snippet, delivery));
        const { stdout } = await promisify(execFile)(process.execPath, [file], {
          env: { ...process.env, PAGEWORKS_WEBHOOK_SECRET: secret },
        });
        return stdout.trim();
      };
      const good = await run({ headers, body });
      expect(good).toContain('status 200');
      expect(good).not.toContain('threw');
      // Both receivers print what the succeeded job's document could not get.
      expect(good).toContain(`logged ${job.id}: logo.png was not loaded: its server answered HTTP 404`);
      const bad = await run({ headers, body: body.replace('succeeded', 'failed') });
      // The standardwebhooks snippet throws (the caller's framework answers 500); the client one answers 400.
      expect(bad).toMatch(i === 0 ? /^threw / : /status 400/);
    },
  );
});
