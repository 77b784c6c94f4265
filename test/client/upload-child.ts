/**
 * Child process for the upload memory test: sends one assembly with a large file beside the body through
 * RenderClient in this process, and prints the most Buffer/ArrayBuffer memory live while it was sent (after
 * a full GC, sampled every 20 ms), so the receiver in the parent does not blur the figure.
 * Usage: node --expose-gc --import tsx test/client/upload-child.ts <baseUrl> <file> <path|base64>
 */
import fs from 'node:fs';
import { RenderClient } from '../../src/client/index.js';

const [baseUrl, file, mode] = process.argv.slice(2);
const client = new RenderClient({ baseUrl, apiKey: 'pwr_live_upload_test', timeoutMs: 300_000, retry: false });
const gc = globalThis.gc ?? (() => {});
gc();
const baseline = process.memoryUsage().arrayBuffers;
let peakLiveBuffers = 0;
const sampler = setInterval(() => {
  gc();
  peakLiveBuffers = Math.max(peakLiveBuffers, process.memoryUsage().arrayBuffers - baseline);
}, 20);
const answer =
  mode === 'path'
    ? await client.assemble({ parts: [{ file: 'big.pdf' }] }, { files: { 'big.pdf': { path: file } } })
    : await client.assemble({ parts: [{ pdf: fs.readFileSync(file).toString('base64') }] });
clearInterval(sampler);
process.stdout.write(`${JSON.stringify({ mode, received: Number(answer.toString()), peakLiveBuffers })}\n`);
