/**
 * The webhook receiver the dashboard's "Get started" page shows runs as written (Fastify and the
 * client's verifyWebhook): it answers 204 to a delivery signed by the server's signing code, with both
 * signatures of a rotation too, and 400 to one whose body was altered.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhookExample } from '../../src/dashboard/views/examples.js';
import { newWebhookSecret, webhookBody, webhookHeaders } from '../../src/jobs/webhook-signing.js';

// Inside the repository (test-artifacts/ is ignored by git), so `fastify` resolves as for a user's project.
fs.mkdirSync(path.resolve('test-artifacts'), { recursive: true });
const work = fs.mkdtempSync(path.join(path.resolve('test-artifacts'), 'receiver-'));
let child: ChildProcess | undefined;

afterAll(() => {
  child?.kill();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the Get started webhook receiver', () => {
  it('accepts a signed delivery (one secret, or the two of a rotation) and refuses an altered one', async () => {
    const example = verifyWebhookExample();
    expect(example).toContain("from '@pageworks/client'");
    expect(example).toContain('await app.listen({ port: 8080 });');
    // The package name points at the sources (the built package is the same code); a free port instead of 8080.
    const program = example
      .replace("'@pageworks/client'", JSON.stringify(path.resolve('src/client/index.ts')))
      .replace(
        'await app.listen({ port: 8080 });',
        "await app.listen({ port: 0, host: '127.0.0.1' });\nconsole.log('port', app.server.address().port);",
      );
    const file = path.join(work, 'receiver.mts');
    fs.writeFileSync(file, program);
    const secret = newWebhookSecret();
    child = spawn(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, PAGEWORKS_WEBHOOK_SECRET: secret } });
    let out = '';
    const port = await new Promise<number>((resolve, reject) => {
      child?.stdout?.on('data', (d) => {
        out += d;
        const m = /port (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child?.on('exit', (code) => reject(new Error(`receiver exited ${code}`)));
    });
    const job = {
      id: 'job_0123456789abcdef0123456789abcdef',
      status: 'succeeded',
      pdf: { url: 'http://127.0.0.1/x.pdf' },
      warnings: [{ kind: 'script_error', text: 'boom', message: 'A script in the document failed: boom' }],
    };
    const body = webhookBody('job.succeeded', new Date(), job);
    const now = Math.floor(Date.now() / 1000);
    const post = (headers: Record<string, string>, payload: string) =>
      fetch(`http://127.0.0.1:${port}/hooks/pageworks`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: payload,
      }).then((r) => r.status);
    expect(await post(webhookHeaders(secret, `msg_${job.id}`, now, body), body)).toBe(204);
    // It prints what the succeeded job's document could not get.
    await expect.poll(() => out, { timeout: 10_000 }).toContain(`${job.id}: A script in the document failed: boom`);
    expect(await post(webhookHeaders([newWebhookSecret(), secret], `msg_${job.id}`, now, body), body)).toBe(204);
    expect(await post(webhookHeaders(secret, `msg_${job.id}`, now, body), body.replace('succeeded', 'failed'))).toBe(400);
    expect(await post(webhookHeaders(newWebhookSecret(), `msg_${job.id}`, now, body), body)).toBe(400);
  }, 60_000);
});
