/**
 * RenderClient against the real render service on a port (real Chromium, real store): the PDF as a
 * Buffer, typed errors with the render id, 503 OVERLOADED retried, and a 100-page PDF streamed by a
 * child process whose memory never holds the whole PDF.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { RenderApiError, RenderClient } from '../../src/client/index.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

const stacks: Array<{ core: CoreDeps; app: FastifyInstance }> = [];

/** A render service on a free port with its own store; returns its address and a render key. */
async function startRender(env: Record<string, string>): Promise<{ baseUrl: string; key: string }> {
  const core = await createTestCore(env);
  const app = await buildRenderApp(core, { lookup: noDns });
  stacks.push({ core, app });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    key: (await createKey(core, 'render')).key,
  };
}

afterAll(async () => {
  for (const { core, app } of stacks) {
    await app.close();
    await closeTestCore(core);
  }
});

function pages(pdf: Buffer | string): number {
  if (typeof pdf === 'string') return Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1]);
  const file = path.join(os.tmpdir(), `pw-client-${process.pid}.pdf`);
  fs.writeFileSync(file, pdf);
  try {
    return pages(file);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

describe('RenderClient', () => {
  it('returns the PDF, and typed errors carrying code, status and X-Render-ID', async () => {
    const { baseUrl, key } = await startRender({ RENDER_CONCURRENCY: '1' });
    const client = new RenderClient({ baseUrl, apiKey: key });
    const pdf = await client.render('<h1>Invoice 42</h1>', { format: 'Letter', margin: { top: '1in' } });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pages(pdf)).toBe(1);

    let error: unknown;
    try {
      // A runtime value the types would refuse: the service's validation answers, and the client reports it.
      await client.render('<p>x</p>', { scale: 3 });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RenderApiError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect((error as Error).message).toBe('options.scale: 3 is out of range (0.1 to 2.0)');
    expect((error as RenderApiError).renderId).toMatch(/^rnd_[0-9a-f]{24}$/);
  });

  it('retries a 503 OVERLOADED after Retry-After until the renderer is free', { timeout: 120_000 }, async () => {
    const { baseUrl, key } = await startRender({ RENDER_CONCURRENCY: '1', RENDER_QUEUE_LIMIT: '0' });
    // Holds the only renderer for ~4 s: a script that spins before the page can load.
    const slow = fetch(`${baseUrl}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<script>const t = Date.now(); while (Date.now() - t < 4000) {}</script><p>slow</p>' }),
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const retries: Array<{ status: number; code: string; delayMs: number }> = [];
    const client = new RenderClient({ baseUrl, apiKey: key, retry: { attempts: 20 }, onRetry: (e) => retries.push(e) });
    const pdf = await client.render('<p>after the slow one</p>');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]).toMatchObject({ status: 503, code: 'OVERLOADED' });
    expect(retries[0].delayMs).toBeGreaterThanOrEqual(1000); // Retry-After is at least 1 s
    expect((await slow).status).toBe(200);

    // Without retries the same refusal reaches the caller as a typed error.
    const busy = fetch(`${baseUrl}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<script>const t = Date.now(); while (Date.now() - t < 3000) {}</script>' }),
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const once = new RenderClient({ baseUrl, apiKey: key, retry: false });
    await expect(once.render('<p>x</p>')).rejects.toMatchObject({
      status: 503,
      code: 'OVERLOADED',
      retryAfterS: expect.any(Number),
    });
    await busy;
  });

  it('streams a 100-page PDF without ever holding it whole', { timeout: 300_000 }, async () => {
    const { baseUrl, key } = await startRender({ RENDER_CONCURRENCY: '1', RENDER_TIMEOUT_MS: '240000' });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-client-stream-'));
    // 100 pages, each a 300×300 canvas of random pixels: the PDF embeds them as images that do not
    // compress, so the PDF is tens of MB, well above the noise of a process's RSS.
    const html = `<style>@page{margin:0} div{break-after:page}</style><body><script>
      for (let i = 0; i < 100; i++) {
        const div = document.body.appendChild(document.createElement('div'));
        const canvas = div.appendChild(document.createElement('canvas'));
        canvas.width = canvas.height = 300;
        const ctx = canvas.getContext('2d'); const img = ctx.createImageData(300, 300);
        crypto.getRandomValues(img.data.subarray(0, 65536));
        for (let o = 65536; o < img.data.length; o += 65536) crypto.getRandomValues(img.data.subarray(o, o + 65536));
        for (let p = 3; p < img.data.length; p += 4) img.data[p] = 255;
        ctx.putImageData(img, 0, 0);
      }</script></body>`;
    const htmlFile = path.join(dir, 'in.html');
    fs.writeFileSync(htmlFile, html);
    // Asynchronous: the service runs in this process and must keep serving while the child reads.
    const run = async (mode: 'stream' | 'buffer') => {
      const { stdout: out } = await promisify(execFile)(
        process.execPath,
        [
          '--expose-gc',
          '--import',
          'tsx',
          'test/client/stream-child.ts',
          baseUrl,
          key,
          mode,
          htmlFile,
          path.join(dir, `${mode}.pdf`),
        ],
        { encoding: 'utf8', timeout: 280_000 },
      );
      return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, number>;
    };
    const streamed = await run('stream');
    const buffered = await run('buffer');
    console.log('client memory, 100-page PDF:', JSON.stringify({ streamed, buffered }));
    try {
      expect(pages(path.join(dir, 'stream.pdf'))).toBe(100);
      expect(streamed.pdfBytes).toBe(fs.statSync(path.join(dir, 'stream.pdf')).size);
      expect(streamed.pdfBytes).toBeGreaterThan(20 * 1024 * 1024);
      // The stream never holds more than a small chunk plus its queue; the whole PDF is never in memory.
      expect(streamed.largestChunk).toBeLessThan(1024 * 1024);
      expect(streamed.maxQueued).toBeLessThan(1024 * 1024);
      // What stays live is what fetch has read ahead of the file (0.4 to 6.5 MB seen on a busy machine), not the PDF.
      expect(streamed.peakLiveBuffers).toBeLessThan(streamed.pdfBytes / 3);
      // Raw RSS growth (logged above) is a figure, not a bound, either way: it also counts chunks written but
      // not yet collected (23 MB for this 27 MB PDF streamed on a busy machine, the PDF never live), and it
      // reuses pages freed before the baseline (11.7 MB for the 27 MB PDF held whole, seen in CI).
      // Live buffers after a full GC do see a PDF held whole, so the bound above can fail: the buffered
      // control holds it, against a baseline part of which is collected meanwhile (7 KB short of 27 MB seen).
      expect(buffered.peakLiveBuffers).toBeGreaterThan(buffered.pdfBytes * 0.9);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
