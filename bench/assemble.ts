/**
 * What assembling and protecting cost, and the candidates they were chosen against. A 150-page report
 * declared `PDF/A-3b, PDF/UA-1` and a one-page invoice are printed once (test/fixtures/pdf); then, one after
 * the other in rounds so that load hits all alike, Pageworks' assembler (report + invoice), qpdf's page merge
 * and @cantoo/pdf-lib's copyPages on the same two files; then protecting the assembly (AES-256 R6) with
 * Pageworks' own encryption (protectPdf), with qpdf --encrypt and with @cantoo/pdf-lib's encrypt. Medians; `qpdf --check` on every output; what each
 * output keeps (outline entries, structure tree). Goals: merge ≤ 150 ms, protect ≤ 150 ms.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { loadConfig } from '../src/config.js';
import { createEgressPolicy } from '../src/net/policy.js';
import { assemblePdfs } from '../src/pdf/index.js';
import { protectPdf } from '../src/pdf/protect/protect-pdf.js';
import { BrowserPool } from '../src/render/pool/browser-pool.js';
import { toPrintParams } from '../src/render/request/options.js';
import { invoiceDocument, longReportDocument } from '../test/fixtures/pdf/profile-documents.js';
import { fmt, heading, median, verdict } from './stats.js';

const ROUNDS = Number(process.env.ASSEMBLE_BENCH_ROUNDS ?? 15);

async function printParts(): Promise<{ report: Buffer; invoice: Buffer; claims: string[] }> {
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  const pool = await BrowserPool.start({
    policy: createEgressPolicy({ allow: [] }),
    concurrency: 1,
    queueLimit: 10,
    timeoutMs: 300_000,
    executablePath: config.chromiumPath,
  });
  try {
    const params = toPrintParams({ printBackground: true });
    const report = await pool.render('bench', longReportDocument(150, 'PDF/A-3b, PDF/UA-1'), params);
    const invoice = await pool.render('bench', invoiceDocument('PDF/A-3b, PDF/UA-1'), params);
    return { report: report.pdf, invoice: invoice.pdf, claims: report.claims };
  } finally {
    await pool.close();
  }
}

/**
 * qpdf on files in `dir`; returns its wall time, its CPU time (user + system) and peak RSS (KiB), the last two
 * from /usr/bin/time when present.
 */
function timedQpdf(args: string[]): { ms: number; cpu: number; kib: number } {
  const hasTime = fs.existsSync('/usr/bin/time');
  const t = performance.now();
  const res = hasTime
    ? spawnSync('/usr/bin/time', ['-f', '%M %U %S', 'qpdf', ...args], { encoding: 'utf8' })
    : spawnSync('qpdf', args);
  const ms = performance.now() - t;
  if (res.status !== 0 && res.status !== 3) throw new Error(`qpdf ${args.join(' ')}: ${String(res.stderr)}`);
  const [kib, user, system] = hasTime ? String(res.stderr).trim().split('\n').at(-1)!.split(' ').map(Number) : [];
  return { ms, cpu: hasTime ? (user + system) * 1000 : Number.NaN, kib: kib ?? Number.NaN };
}

/**
 * Runs `fn` and returns its wall time, the CPU time this process spent meanwhile (on a loaded machine the
 * steadier figure) and the RSS growth it left (MiB).
 */
async function timed(fn: () => Promise<unknown>): Promise<{ ms: number; cpu: number; mib: number }> {
  const before = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  const t = performance.now();
  await fn();
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(cpuBefore);
  return { ms, cpu: (cpu.user + cpu.system) / 1000, mib: (process.memoryUsage().rss - before) / 2 ** 20 };
}

function check(file: string): string {
  const res = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  return res.status === 0 ? 'qpdf --check clean' : `qpdf --check status ${res.status}`;
}

function keeps(file: string): string {
  const json = JSON.parse(
    execFileSync('qpdf', ['--json', '--json-key=outlines', file], { encoding: 'utf8', maxBuffer: 256 << 20 }),
  );
  const tagged = /Tagged:\s+yes/.test(execFileSync('pdfinfo', [file], { encoding: 'utf8' }));
  return `${json.outlines.length} outline entries, ${tagged ? 'tagged' : 'untagged'}`;
}

/** Runs the bench and prints its figures and goals. */
export async function runAssembleBench(): Promise<void> {
  heading('assemble: merging and protecting a 150-page report');
  const { report, invoice } = await printParts();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-bench-assemble-'));
  const file = (name: string): string => path.join(dir, name);
  try {
    fs.writeFileSync(file('report.pdf'), report);
    fs.writeFileSync(file('invoice.pdf'), invoice);
    const claims = ['PDF/A-3b', 'PDF/UA-1'] as const;
    const parts = [
      { pdf: report, label: 'parts[0]', claims: [...claims] },
      { pdf: invoice, label: 'parts[1]', claims: [...claims] },
    ];
    const ours = await assemblePdfs(parts);
    fs.writeFileSync(file('ours.pdf'), ours.pdf);
    const keys = ['pageworks', 'qpdf', 'pdfLib', 'protect', 'protectQpdf', 'protectPdfLib'];
    const runs: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
    const memory: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
    const cpu: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
    for (let round = 0; round < ROUNDS + 1; round++) {
      const sample: Record<string, { ms: number; cpu: number; mem: number }> = {};
      const a = await timed(() => assemblePdfs(parts));
      sample.pageworks = { ms: a.ms, cpu: a.cpu, mem: a.mib };
      const q = timedQpdf(['--empty', '--pages', file('report.pdf'), file('invoice.pdf'), '--', file('qpdf.pdf')]);
      sample.qpdf = { ms: q.ms, cpu: q.cpu, mem: q.kib / 1024 };
      const l = await timed(async () => {
        const out = await PDFDocument.create({ updateMetadata: false });
        for (const bytes of [report, invoice]) {
          const src = await PDFDocument.load(bytes, { updateMetadata: false });
          for (const page of await out.copyPages(src, src.getPageIndices())) out.addPage(page);
        }
        fs.writeFileSync(file('pdf-lib.pdf'), await out.save());
      });
      sample.pdfLib = { ms: l.ms, cpu: l.cpu, mem: l.mib };
      const p = await timed(() => protectPdf(ours.pdf, { userPassword: 'u', ownerPassword: 'o', allow: ['print'] }));
      sample.protect = { ms: p.ms, cpu: p.cpu, mem: p.mib };
      const qe = timedQpdf([
        '--stream-data=preserve',
        '--encrypt',
        'u',
        'o',
        '256',
        '--print=full',
        '--',
        file('ours.pdf'),
        file('qpdf-protected.pdf'),
      ]);
      sample.protectQpdf = { ms: qe.ms, cpu: qe.cpu, mem: qe.kib / 1024 };
      const e = await timed(async () => {
        const doc = await PDFDocument.load(ours.pdf, { updateMetadata: false });
        // pdf-lib refuses to encrypt a file whose XMP claims PDF/A; Pageworks takes the claim out first too.
        doc.catalog.delete(PDFName.of('Metadata'));
        doc.encrypt({ userPassword: 'u', ownerPassword: 'o', permissions: { printing: 'highResolution' } });
        fs.writeFileSync(file('pdf-lib-protected.pdf'), await doc.save());
      });
      sample.protectPdfLib = { ms: e.ms, cpu: e.cpu, mem: e.mib };
      if (round === 0) continue; // warm-up
      for (const [key, s] of Object.entries(sample)) {
        runs[key].push(s.ms);
        cpu[key].push(s.cpu);
        memory[key].push(s.mem);
      }
    }
    fs.writeFileSync(file('ours-protected.pdf'), await protectPdf(ours.pdf, { userPassword: 'u', ownerPassword: 'o' }));
    const line = (label: string, key: string, what: string): void => {
      process.stdout.write(
        `${label.padEnd(44)} median ${fmt(median(runs[key]), 1, 8)} ms  cpu ${fmt(median(cpu[key]), 1, 7)} ms  memory ${fmt(median(memory[key]), 1, 6)} MiB  ${what}\n`,
      );
    };
    process.stdout.write(`${ROUNDS} rounds; report ${report.length} bytes, ${ours.pages} pages assembled\n`);
    line(
      'merge: Pageworks assembler',
      'pageworks',
      `${check(file('ours.pdf'))}; ${keeps(file('ours.pdf'))}; claims ${ours.claims.join(', ')}`,
    );
    line('merge: qpdf --empty --pages', 'qpdf', `${check(file('qpdf.pdf'))}; ${keeps(file('qpdf.pdf'))} (peak RSS)`);
    line(
      'merge: @cantoo/pdf-lib copyPages',
      'pdfLib',
      `${check(file('pdf-lib.pdf'))}; ${keeps(file('pdf-lib.pdf'))} (RSS growth)`,
    );
    line(
      'protect: Pageworks protectPdf',
      'protect',
      `${checkProtected(file('ours-protected.pdf'))}; ${showR(file('ours-protected.pdf'))} (RSS growth)`,
    );
    line('protect: qpdf --encrypt 256', 'protectQpdf', `${showR(file('qpdf-protected.pdf'))} (peak RSS)`);
    line('protect: @cantoo/pdf-lib encrypt', 'protectPdfLib', `${showR(file('pdf-lib-protected.pdf'))} (RSS growth)`);
    const merge = median(runs.pageworks);
    const protect = median(runs.protect);
    process.stdout.write(`goal: merging the 150-page report ≤ 150 ms: ${fmt(merge, 1, 0)} ms — ${verdict(merge <= 150)}\n`);
    process.stdout.write(
      `goal: protecting the 150-page report ≤ 150 ms: ${fmt(protect, 1, 0)} ms — ${verdict(protect <= 150)}\n`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function checkProtected(file: string): string {
  const res = spawnSync('qpdf', ['--password=u', '--check', file], { encoding: 'utf8' });
  return res.status === 0 ? 'qpdf --check clean' : `qpdf --check status ${res.status}`;
}

function showR(file: string): string {
  const out = spawnSync('qpdf', ['--password=u', '--show-encryption', file], { encoding: 'utf8' }).stdout;
  return `R = ${/^R = (\d)/m.exec(out)?.[1] ?? '?'}, ${/^stream encryption method: (\S+)/m.exec(out)?.[1] ?? '?'}`;
}
