/**
 * `assemble` with `{ path }` sends the file as it reads it: a child process sends a 128 MiB file to a
 * receiver that reads at its own pace, and never holds more than a fraction of it in Buffers, where the
 * same file as base64 JSON holds more than all of it. A receiver rather than the render service, because
 * the service refuses a form past about 60 MiB before it is all sent; the file need not be a PDF for that.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SIZE = 128 * 1024 * 1024;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-upload-memory-'));
const file = path.join(dir, 'big.pdf');
let server: http.Server;
let base: string;

beforeAll(async () => {
  const out = fs.openSync(file, 'w');
  const block = Buffer.alloc(1024 * 1024, 'x');
  for (let i = 0; i < SIZE / block.length; i++) fs.writeSync(out, block);
  fs.closeSync(out);
  // Reads each chunk after a timer turn, as a busy service would; answers with the count it read.
  server = http.createServer(async (req, res) => {
    let bytes = 0;
    for await (const chunk of req) {
      bytes += (chunk as Buffer).length;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    res.writeHead(200, { 'content-type': 'application/pdf', 'x-render-id': 'rnd_upload' });
    res.end(String(bytes));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the child in one mode; what it printed. */
function send(mode: 'path' | 'base64'): Promise<{ received: number; peakLiveBuffers: number }> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/client/upload-child.ts', base, file, mode]);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}')) : reject(new Error(`exit ${code}: ${err}`)),
    ),
  );
}

describe('RenderClient.assemble with { path }', () => {
  it('sends a 128 MiB file holding a fraction of it; the same as base64 JSON holds more than all of it', async () => {
    const streamed = await send('path');
    const base64 = await send('base64');
    console.log('client memory, 128 MiB upload:', JSON.stringify({ streamed, base64 }));
    // The form: the file, its headers and the body field; all of it arrived.
    expect(streamed.received).toBeGreaterThan(SIZE);
    expect(streamed.peakLiveBuffers).toBeLessThan(SIZE / 4);
    expect(base64.peakLiveBuffers).toBeGreaterThan(SIZE);
  }, 240_000);
});
