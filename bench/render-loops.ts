/**
 * The render bench's measuring loops: the service over HTTP, a bare puppeteer loop (the minimum for a
 * fresh document per render) and a browser launched per request.
 */
import http from 'node:http';
import puppeteer, { type Page } from 'puppeteer-core';
import { chromiumArgs, findChromium, launchChromium, shutdownChromium } from '../src/render/browser/chromium.js';

/** What one loop measured. */
export interface LoopResult {
  label: string;
  concurrency: number;
  renders: number;
  wallMs: number;
  latencies: number[];
}

/** A4 with default options, as the service prints a request without options. */
const A4 = {
  width: `${210 / 25.4}in`,
  height: `${297 / 25.4}in`,
  margin: { top: '0in', right: '0in', bottom: '0in', left: '0in' },
};

/** Renders per second of a loop. */
export function rate(r: LoopResult): number {
  return (r.renders / r.wallMs) * 1000;
}

/** The measured latencies of a loop, added to as its chunks run. */
export function emptyResult(label: string, concurrency: number): LoopResult {
  return { label, concurrency, renders: 0, wallMs: 0, latencies: [] };
}

/**
 * Runs `one` from `concurrency` workers until `count` more renders are done (or `maxMs` passed) and adds
 * them to `into`. Benches alternate short chunks of the loops they compare, so machine noise hits all alike.
 */
export async function drive(
  into: LoopResult,
  count: number,
  maxMs: number,
  one: (worker: number) => Promise<void>,
): Promise<void> {
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: into.concurrency }, async (_, w) => {
      while (started < count && performance.now() - t0 < maxMs) {
        started += 1;
        const t = performance.now();
        await one(w);
        into.latencies.push(performance.now() - t);
      }
    }),
  );
  into.wallMs += performance.now() - t0;
  into.renders = into.latencies.length;
}

/**
 * One render through a running render service's HTTP API, on kept-alive connections. The client shares
 * the machine (and in most benches the process) with the service, and bare loops have no client at all:
 * node:http costs about 0.7 ms of CPU a request less than fetch (undici and its web streams), measured on
 * the 2-core development machine, so the client takes as little as it can of what the service is timed on.
 */
export function serviceRender(baseUrl: string, key: string, html: string): () => Promise<void> {
  const body = Buffer.from(JSON.stringify({ html }));
  const url = new URL('/v1/render', baseUrl);
  const agent = new http.Agent({ keepAlive: true });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length };
  return () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const pdf = Buffer.concat(chunks);
          if (res.statusCode === 200 && pdf.subarray(0, 5).toString() === '%PDF-') resolve();
          else reject(new Error(`service answered ${res.statusCode}: ${pdf.toString().slice(0, 200)}`));
        });
      });
      req.on('error', reject);
      req.end(body);
    });
}

/** A bare puppeteer renderer: one reused page per worker; about:blank, setContent, pdf per render. */
export async function startBare(
  html: string,
  workers: number,
  executablePath?: string,
): Promise<{ render: (worker: number) => Promise<void>; close: () => Promise<void>; pid: number }> {
  const launched = await launchChromium(executablePath);
  const pages: Page[] = await Promise.all(Array.from({ length: workers }, () => launched.browser.newPage()));
  return {
    render: async (w) => {
      const page = pages[w];
      await page.goto('about:blank');
      await page.setContent(html);
      await page.pdf(A4);
    },
    close: () => shutdownChromium(launched),
    pid: launched.pid,
  };
}

/** What a naive service does: launch Chromium, render, close it, for every request. */
export async function launchPerRequest(html: string): Promise<void> {
  const browser = await puppeteer.launch({
    executablePath: findChromium({ configured: process.env.CHROMIUM_PATH }),
    headless: true,
    args: chromiumArgs(),
  });
  try {
    const page = await browser.newPage();
    await page.setContent(html);
    await page.pdf(A4);
  } finally {
    await browser.close();
  }
}
