/**
 * src/pdf/engine.ts on its own: an operation gives what the in-process function gives; an operation's
 * refusal comes back as the kind it was thrown as; an overrun (deadline, heap) ends its worker with an error
 * naming the part and the variable, while the event loop keeps turning, and the next operation runs on a
 * fresh worker; a signature's timestamp is asked of the service, its wait not counted against the deadline.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parsePkcs12 } from '../../src/accounts/pkcs12.js';
import { createPinnedAgent } from '../../src/net/pinned-agent.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import { assemblePdfs } from '../../src/pdf/assemble/assemble-pdfs.js';
import { splitPages } from '../../src/pdf/assemble/keep-pages.js';
import { PdfEngine, PdfWorkError, PdfWorkLimitError } from '../../src/pdf/engine.js';
import { rfc3161Timestamper } from '../../src/pdf/index.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import { classicPdf, manyPagesPdf } from '../helpers/hostile-inputs.js';
import { noDns } from '../helpers/render.js';
import { startTestTsa, type TestTsa } from '../helpers/tsa-server.js';

const onePage = (width: number) =>
  classicPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} 842] >>`,
  ]);

const engine = new PdfEngine({ workers: 2, timeoutMs: 1000, maxMemoryMb: 192 });
// Deadlines are met with a legitimate but long merge (the readers refuse malformed files at once), with
// room enough in memory that the deadline, not the memory bound, ends it.
const timed = new PdfEngine({ workers: 1, timeoutMs: 1000, maxMemoryMb: 2048 });
const certs = makeTestCertificates();
let tsa: TestTsa;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-engine-'));
// What a service killed mid-operation leaves behind: its bytes directory, named by its process id.
const gonePid = spawnSync('true').pid as number;
const stale = path.join(os.tmpdir(), `pageworks-pdf-${gonePid}-stale1`);
fs.mkdirSync(stale, { mode: 0o700 });
fs.writeFileSync(path.join(stale, '1.in'), 'a part of a killed service');

/** This process's directories for the bytes that cross to the workers: each one's mode and files. */
function bytesDirectories(): Array<{ mode: number; files: string[] }> {
  return fs
    .readdirSync(os.tmpdir())
    .filter((name) => name.startsWith(`pageworks-pdf-${process.pid}-`))
    .map((name) => path.join(os.tmpdir(), name))
    .map((at) => ({ mode: fs.statSync(at).mode & 0o777, files: fs.readdirSync(at) }));
}

beforeAll(async () => {
  tsa = await startTestTsa();
  engine.warm();
  timed.warm();
});
afterAll(async () => {
  await Promise.all([engine.close(), timed.close(), tsa?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The longest the event loop went without turning while `work` ran (a 10 ms interval's largest gap). */
async function longestStall<T>(work: Promise<T>): Promise<{ settled: PromiseSettledResult<T>; stallMs: number }> {
  let last = Date.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    stallMs = Math.max(stallMs, Date.now() - last);
    last = Date.now();
  }, 10);
  const [settled] = await Promise.allSettled([work]);
  clearInterval(timer);
  return { settled, stallMs };
}

describe('PdfEngine', () => {
  it('merges in a worker exactly as in process', async () => {
    const parts = [
      { pdf: onePage(595), label: 'parts[0]' },
      { pdf: onePage(612), label: 'parts[1]' },
    ];
    const [viaWorker, inProcess] = await Promise.all([
      engine.run('assemble', { parts }, { label: 'parts' }),
      assemblePdfs(parts),
    ]);
    expect(viaWorker.pages).toBe(2);
    expect(viaWorker.partPages).toEqual([1, 1]);
    expect(Buffer.isBuffer(viaWorker.pdf)).toBe(true);
    expect(Buffer.from(viaWorker.pdf).equals(Buffer.from(inProcess.pdf))).toBe(true);
  });

  it('gives large parts and results exactly as in process, through files of a private directory removed once read', async () => {
    // Over 64 KiB each way: the bytes go through files, not the IPC channel.
    const parts = [
      { pdf: manyPagesPdf(1500), label: 'parts[0]' },
      { pdf: onePage(612), label: 'parts[1]' },
    ];
    // A deadline that a loaded machine cannot reach: the bytes, not the limits, are the point here.
    const roomy = new PdfEngine({ workers: 1, timeoutMs: 30_000, maxMemoryMb: 512 });
    const merging = roomy.run('assemble', { parts }, { label: 'parts' });
    // While an operation holds it, the directory is the process's own.
    await vi.waitFor(() => expect(bytesDirectories().map((d) => d.mode)).toEqual([0o700]), { timeout: 20_000, interval: 5 });
    const viaWorker = await merging;
    const inProcess = await assemblePdfs(parts);
    expect(viaWorker.pdf.length).toBeGreaterThan(64 * 1024);
    expect(Buffer.from(viaWorker.pdf).equals(Buffer.from(inProcess.pdf))).toBe(true);
    const pieces = [
      { label: 'a', pages: Array.from({ length: 1000 }, (_, i) => i) },
      { label: 'b', pages: Array.from({ length: 501 }, (_, i) => i + 1000) },
    ];
    const split = await roomy.run('split-pages', { pdf: viaWorker.pdf, pieces }, { label: 'split' }).finally(() => roomy.close());
    const expected = await splitPages(inProcess.pdf, pieces);
    expect(split.map((p) => p.pages)).toEqual([1000, 501]);
    expect(split.map((p) => Buffer.from(p.pdf).toString('hex'))).toEqual(expected.map((p) => Buffer.from(p.pdf).toString('hex')));
    // Once no operation holds it, nothing is left: neither this process's files nor a killed one's.
    await vi.waitFor(() => expect(bytesDirectories()).toEqual([]), { timeout: 2000 });
    expect(fs.existsSync(stale)).toBe(false);
  });

  it("returns an operation's refusal as the kind it was thrown as, with its fields", async () => {
    const refused = engine.run('assemble', { parts: [{ pdf: Buffer.from('not a pdf'), label: 'parts[3]' }] }, { label: 'parts' });
    await expect(refused).rejects.toBeInstanceOf(PdfWorkError);
    const error = (await refused.catch((e: unknown) => e)) as PdfWorkError;
    expect(error.kind).toBe('AssembleInputError');
    expect(error.message).toBe('parts[3]: not a PDF (it does not start with %PDF-)');
    expect(error.fields).toMatchObject({ label: 'parts[3]', problem: 'not_pdf' });
    const password = await engine
      .run('read-pkcs12', { data: certs.rsaChain, password: 'wrong' }, { label: 'pkcs12' })
      .catch((e: unknown) => e);
    expect(password).toMatchObject({ kind: 'Pkcs12Error', message: 'pkcs12: wrong password (the file does not open with it)' });
  });

  it('ends a part that overruns its deadline, naming it and the variable, without stalling the event loop; the next operation runs', async () => {
    // Reading 300,000 pages takes well over the 1 s deadline however fast the bytes arrive (100,000 took
    // 0.5–1.1 s: the deadline could fall after the read, while the pages were being copied).
    const long = manyPagesPdf(300_000);
    const started = Date.now();
    const { settled, stallMs } = await longestStall(
      timed.run(
        'assemble',
        {
          parts: [
            { pdf: onePage(595), label: 'parts[0]' },
            { pdf: long, label: 'parts[1]' },
          ],
        },
        { label: 'parts' },
      ),
    );
    expect(settled.status).toBe('rejected');
    const error = (settled as PromiseRejectedResult).reason as PdfWorkLimitError;
    expect(error).toBeInstanceOf(PdfWorkLimitError);
    expect(error.message).toBe('parts[1]: reading the PDF took longer than 1 s (PDF_WORK_TIMEOUT_MS)');
    expect(Date.now() - started).toBeLessThan(3000);
    // Read on this thread, the pages would hold the loop for the whole second and more. What the loop
    // still pays is its own share of the work (handing over the bytes, starting the next worker) and the
    // scheduler: 16-28 ms beside four busy loops, 86 ms beside the PDF suite, 346 ms once beside the
    // whole suite on 2 cores. Half the deadline tells the two apart with room for a loaded machine.
    expect(stallMs).toBeLessThan(500);
    expect(await timed.run('count-pages', { pdf: onePage(595) }, { label: 'parts[0]' })).toBe(1);
    // The killed worker's input is removed once its process is gone.
    await vi.waitFor(() => expect(bytesDirectories()).toEqual([]), { timeout: 2000 });
  }, 60_000);

  it('scales the deadline of a large merge and says so', async () => {
    // Reading 300,000 pages takes 3-4 s at load 5 and may take under 2 s on a quiet machine: the deadline
    // stays well below what the read needs.
    const short = new PdfEngine({ workers: 1, timeoutMs: 300, maxMemoryMb: 2048 });
    try {
      const scaled = await short
        .run(
          'assemble',
          { parts: [{ pdf: manyPagesPdf(300_000), label: 'parts[0]' }] },
          { label: 'parts', scale: { times: 2, per: 'per 100 parts' } },
        )
        .catch((e: unknown) => e);
      expect((scaled as Error).message).toBe(
        'parts[0]: reading the PDF took longer than 0.6 s (PDF_WORK_TIMEOUT_MS per 100 parts)',
      );
    } finally {
      await short.close();
    }
  }, 60_000);

  it('ends a part whose work outgrows the memory bound, naming the variable', async () => {
    // A merge of 100,000 pages cannot fit in 192 MiB (the readers now refuse an XMP that inflates past 4 MiB).
    const bomb = manyPagesPdf(100_000);
    const roomy = new PdfEngine({ workers: 1, timeoutMs: 20_000, maxMemoryMb: 192 });
    try {
      const error = await roomy
        .run('assemble', { parts: [{ pdf: bomb, label: 'parts[0]' }] }, { label: 'parts' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PdfWorkLimitError);
      expect((error as PdfWorkLimitError).limit).toBe('memory');
      expect((error as Error).message).toMatch(/^parts(\[0\])?: .* needed more than 192 MiB \(PDF_WORK_MAX_MB\)$/);
      expect(await roomy.run('count-pages', { pdf: onePage(595) }, { label: 'parts[0]' })).toBe(1);
    } finally {
      await roomy.close();
    }
  }, 60_000);

  it('keeps a process with nothing else pending alive until its operation is done (the CLI, a bench); its bytes directory goes with it, and without one its bytes cross inline', () => {
    const script = path.join(dir, 'alone.mts');
    const engineUrl = new URL('../../src/pdf/engine.ts', import.meta.url).href;
    fs.writeFileSync(
      script,
      `import { PdfEngine } from ${JSON.stringify(engineUrl)};\n` +
        `const engine = new PdfEngine({ workers: 1, timeoutMs: 20000, maxMemoryMb: 512 });\n` +
        `console.log('pages', await engine.run('count-pages', { pdf: Buffer.from('%PDF-1.7 << /Type /Pages /Count 3 >>') }, { label: 'x' }));\n` +
        // Large enough to cross through a file: the process's bytes directory goes with it.
        `console.log('pages', await engine.run('count-pages', { pdf: Buffer.from('%PDF-1.7 << /Type /Pages /Count 4 >>'.padEnd(100000)) }, { label: 'x' }));\n` +
        `console.log('pid', process.pid);\n`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      cwd: path.resolve(import.meta.dirname, '../..'),
    });
    const [pages3, pages4, pid] = run.stdout.trim().split('\n');
    expect([pages3, pages4]).toEqual(['pages 3', 'pages 4']);
    expect(run.status).toBe(0);
    const left = fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`pageworks-pdf-${pid?.split(' ')[1]}-`));
    expect(left).toEqual([]);
    // Where no directory can be made ($TMPDIR missing or full), the bytes cross inline: the same answers.
    const noTmp = spawnSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      cwd: path.resolve(import.meta.dirname, '../..'),
      // A $TMPDIR under a file cannot be made (tsx's own cache turned off, which would need one too).
      env: { ...process.env, TMPDIR: '/dev/null/tmp', TSX_DISABLE_CACHE: '1' },
    });
    expect(noTmp.stdout.trim().split('\n').slice(0, 2)).toEqual(['pages 3', 'pages 4']);
    expect(noTmp.status).toBe(0);
  }, 60_000);

  it("signs in a worker with the service's timestamp authority; the service's wait is not the operation's", async () => {
    const parsed = parsePkcs12(certs.rsaChain, certs.password);
    // Reading it takes forge a while on a busy machine: an engine whose deadline is not the point here.
    const reader = new PdfEngine({ workers: 1, timeoutMs: 20_000, maxMemoryMb: 512 });
    const viaEngine = await reader
      .run('read-pkcs12', { data: certs.rsaChain, password: certs.password }, { label: 'pkcs12' })
      .finally(() => reader.close());
    expect(viaEngine.subject).toBe(parsed.subject);
    expect(viaEngine.chain.map((c) => Buffer.from(c).toString('hex'))).toEqual(parsed.chain.map((c) => c.toString('hex')));
    const signer = { certificateChain: viaEngine.chain, privateKeyDer: viaEngine.privateKeyDer };
    const policy = createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: noDns });
    const agent = createPinnedAgent();
    try {
      const timestamper = rfc3161Timestamper(tsa.url, policy, agent);
      // The authority answers after 1.5 s: longer than the operation's own 1 s.
      const slow = async (signature: Buffer) => {
        await new Promise((r) => setTimeout(r, 1500));
        return timestamper(signature);
      };
      const signed = await engine.run(
        'sign',
        { pdf: onePage(595), signer, opts: { reason: 'Checked' }, timestamp: true },
        { label: 'sign', calls: { timestamp: slow } },
      );
      const file = path.join(dir, 'signed.pdf');
      fs.writeFileSync(file, signed);
      const report = spawnSync('pdfsig', [file], { encoding: 'utf8' }).stdout;
      expect(report).toContain('Signature is Valid.');
      expect(report).toContain('Total document signed');
      expect(tsa.imprints).toHaveLength(1);
    } finally {
      await agent.close();
    }
  }, 30_000);
});
