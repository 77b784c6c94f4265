/**
 * Child process for the streaming test: renders a large PDF through RenderClient in this process and
 * prints what it cost in memory, so the server (in the parent) does not blur the figures.
 * Usage: node --import tsx test/client/stream-child.ts <baseUrl> <key> <stream|buffer> <html file> <out file>
 */
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { RenderClient } from '../../src/client/index.js';

const [baseUrl, apiKey, mode, htmlFile, outFile] = process.argv.slice(2);
const client = new RenderClient({ baseUrl, apiKey, timeoutMs: 300_000, retry: false });
const html = fs.readFileSync(htmlFile, 'utf8');

// Warm up fetch, the stream machinery and the heap with one small render, then settle.
await client.render('<p>warm-up</p>');
globalThis.gc?.(); // run with --expose-gc
await new Promise((resolve) => setTimeout(resolve, 200));

const gc = globalThis.gc ?? (() => {});
const baselineRss = process.memoryUsage().rss;
const baselineBuffers = process.memoryUsage().arrayBuffers;
// Live bytes in Buffers/ArrayBuffers right after a full GC: what the process actually holds, without the
// chunks already written and waiting to be collected (which raw RSS counts too).
let peakLiveBuffers = 0;
const sampleLive = () => {
  gc();
  peakLiveBuffers = Math.max(peakLiveBuffers, process.memoryUsage().arrayBuffers - baselineBuffers);
};
let peakRss = baselineRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 5);

let pdfBytes = 0;
let largestChunk = 0;
let maxQueued = 0;
if (mode === 'stream') {
  const { body } = await client.renderStream(html);
  let nextSample = 0;
  body.on('data', (chunk: Buffer) => {
    pdfBytes += chunk.length;
    if (pdfBytes >= nextSample) {
      sampleLive();
      nextSample += 2 * 1024 * 1024;
    }
    largestChunk = Math.max(largestChunk, chunk.length);
    maxQueued = Math.max(maxQueued, body.readableLength);
  });
  await pipeline(body, fs.createWriteStream(outFile));
} else {
  const pdf = await client.render(html);
  pdfBytes = largestChunk = pdf.length;
  sampleLive();
  fs.writeFileSync(outFile, pdf);
}
peakRss = Math.max(peakRss, process.memoryUsage().rss);
clearInterval(sampler);
process.stdout.write(
  `${JSON.stringify({ mode, pdfBytes, baselineRss, peakRss, growth: peakRss - baselineRss, peakLiveBuffers, largestChunk, maxQueued })}\n`,
);
