/**
 * PDF fuzz bench (`npm run bench -- pdf-fuzz`, opt-in): the suite's PDF fuzz (test/fuzz/pdf-fuzz-run.ts) with a
 * fresh seed and PDF_FUZZ_N inputs (default 20,000): mutated PDFs as assembly parts, mutated PKCS#12 files to
 * POST /v1/certificates, mutated Factur-X XMLs attached to renders, against one running service; an assembly
 * answered 200 must be a PDF whose objects all parse and in which `qpdf --check` finds nothing it does not
 * find in the part. Prints the inputs, the answers by status, the slowest,
 * the peak RSS and the other account's renders; each failure with the seed, and its bytes under
 * PDF_FUZZ_KEEP (a directory) to replay it.
 * PDF_FUZZ_MAC_TAIL=1 lets PKCS#12 bit flips reach the MAC's iteration count.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runPdfFuzz } from '../test/fuzz/pdf-fuzz-run.js';
import { fmt, heading, verdict } from './stats.js';

/** docs/deploy.md "Sizing": 512 MB + 384 MB per concurrent render (the service here runs one). */
const MAX_PEAK_RSS_MIB = 512 + 384;

/** The pdf-fuzz section of `npm run bench`. */
export async function runPdfFuzzBench(): Promise<void> {
  const inputs = Math.max(1, Number(process.env.PDF_FUZZ_N ?? 20_000));
  const seed = Number(process.env.PDF_FUZZ_SEED ?? (Date.now() ^ (Math.random() * 2 ** 31)) >>> 0);
  const keep = process.env.PDF_FUZZ_KEEP ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-pdf-fuzz-'));
  // A failure's bytes are written there the moment it is found: a directory named but not made stopped the run.
  fs.mkdirSync(keep, { recursive: true });
  heading(`pdf-fuzz: ${inputs} mutated PDFs, PKCS#12 files and Factur-X XMLs, seed ${seed}`);
  const started = Date.now();
  const report = await runPdfFuzz({
    seed,
    inputs,
    pkcs12MacTail: process.env.PDF_FUZZ_MAC_TAIL !== '0',
    failureDir: keep,
    progress: (done) => {
      if (done % 1000 === 0) process.stdout.write(`  ${done} inputs, ${Math.round((Date.now() - started) / 1000)} s\n`);
    },
  });
  process.stdout.write(`inputs ${report.inputs} in ${Math.round((Date.now() - started) / 1000)} s\n`);
  process.stdout.write(
    `answers by status: ${Object.entries(report.byStatus)
      .map(([status, n]) => `${status === '0' ? 'none' : status} ×${n}`)
      .join(', ')}\n`,
  );
  process.stdout.write('slowest:\n');
  for (const s of report.slowest) process.stdout.write(`  ${fmt(s.ms, 0, 8)} ms  ${s.status}  ${s.kind}: ${s.how}\n`);
  process.stdout.write(
    `peak RSS ${fmt(report.peakRssMib, 0, 5)} MiB  < ${MAX_PEAK_RSS_MIB} MiB: ${verdict(report.peakRssMib < MAX_PEAK_RSS_MIB)}\n`,
  );
  const b = report.bystander;
  process.stdout.write(
    `another account's renders: ${b.renders}, failed ${b.failed}, slowest ${fmt(b.slowestMs, 0, 6)} ms: ${verdict(b.failed === 0)}\n`,
  );
  process.stdout.write(`failures: ${report.failures.length}: ${verdict(report.failures.length === 0)}\n`);
  for (const f of report.failures.slice(0, 50)) process.stdout.write(`  seed ${seed}, ${f}\n`);
  if (report.failures.length) process.stdout.write(`  their bytes: ${keep}\n`);
}
