/**
 * What a signature costs: signPdf (PAdES B-B, RSA-3072) on the 150-page report (rendered once through
 * the pool, declared PDF/A-2b so it carries the profiles' update), plain and protected with AES-256
 * (qpdf; signed with the owner password), after a warm-up. Goal: median ≤ 150 ms each.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parsePkcs12 } from '../src/accounts/pkcs12.js';
import { loadConfig } from '../src/config.js';
import { createEgressPolicy } from '../src/net/policy.js';
import { type Signer, signPdf } from '../src/pdf/index.js';
import { BrowserPool } from '../src/render/pool/browser-pool.js';
import { toPrintParams } from '../src/render/request/options.js';
import { longReportDocument } from '../test/fixtures/pdf/profile-documents.js';
import { fmt, heading, median, verdict } from './stats.js';

const RUNS = 30;
const GOAL_MS = 150;

function signer(dir: string): Signer {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  run('req', '-x509', '-newkey', 'rsa:3072', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-days', '30', '-subj', '/CN=Bench');
  run('pkcs12', '-export', '-in', 'c.pem', '-inkey', 'k.pem', '-out', 'b.p12', '-passout', 'pass:bench');
  const parsed = parsePkcs12(fs.readFileSync(path.join(dir, 'b.p12')), 'bench');
  return {
    certificateChain: parsed.chain,
    privateKey: crypto.createPrivateKey({ key: parsed.privateKeyDer, format: 'der', type: 'pkcs8' }),
  };
}

async function timed(pdf: Buffer, sign: (pdf: Buffer) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await sign(pdf);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await sign(pdf);
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Runs the bench and prints its figures and goals. */
export async function runSignBench(): Promise<void> {
  heading('sign: PAdES B-B on a 150-page report');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-bench-sign-'));
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  const pool = await BrowserPool.start({
    policy: createEgressPolicy({ allow: [] }),
    concurrency: 1,
    queueLimit: 10,
    timeoutMs: 180_000,
    executablePath: config.chromiumPath,
  });
  try {
    const report = Buffer.from(
      (await pool.render('bench', longReportDocument(150, 'PDF/A-2b'), toPrintParams({ printBackground: true }))).pdf,
    );
    const bySigner = signer(dir);
    fs.writeFileSync(path.join(dir, 'report.pdf'), report);
    execFileSync('qpdf', ['--encrypt', 'user', 'owner', '256', '--', 'report.pdf', 'protected.pdf'], { cwd: dir });
    const protectedPdf = fs.readFileSync(path.join(dir, 'protected.pdf'));
    const plain = await timed(report, (pdf) => signPdf(pdf, { signer: bySigner, reason: 'bench' }));
    const locked = await timed(protectedPdf, (pdf) => signPdf(pdf, { signer: bySigner, reason: 'bench', password: 'owner' }));
    const size = (report.length / 1024 / 1024).toFixed(1);
    process.stdout.write(
      `signPdf, 150-page report (${size} MiB)        median ${fmt(plain, 1, 7)} ms  ${verdict(plain <= GOAL_MS)} (goal ≤ ${GOAL_MS} ms)\n`,
    );
    process.stdout.write(
      `signPdf, same report protected (AES-256)  median ${fmt(locked, 1, 7)} ms  ${verdict(locked <= GOAL_MS)} (goal ≤ ${GOAL_MS} ms)\n`,
    );
  } finally {
    await pool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
