/**
 * The claims differential run (`npm run bench -- claims-fuzz`, opt-in): CLAIMS_FUZZ_N awkward documents
 * (default 3000) from seed CLAIMS_FUZZ_SEED (default: the clock), each rendered with every declaration,
 * every claim checked by veraPDF (VERAPDF) while the renders go on, one JVM per CLAIMS_FUZZ_BATCH PDFs of a
 * flavour. One document in INVOICE_EVERY is a Factur-X invoice whose amount due is shown, hidden or printed
 * for something else (a fifth of them past page 200): a Factur-X claim on one a reader does not see is false.
 * Prints documents, claims per profile, and every false claim with its rules; the documents of false claims
 * are written to CLAIMS_FUZZ_OUT (default a temp folder) to become fixtures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { awkwardDocument } from '../test/pdf/claims/awkward-documents.js';
import { type ClaimsDocument, runClaims } from '../test/pdf/claims/claims-runner.js';
import { startClaimsService } from '../test/pdf/claims/claims-service.js';
import { invoiceDocument } from '../test/pdf/claims/invoice-documents.js';
import { VERAPDF } from '../test/pdf/verapdf.js';
import { heading } from './stats.js';

/** How often a document of the run is an invoice rather than an awkward page. */
const INVOICE_EVERY = 20;

/** The claims-fuzz section of `npm run bench`. */
export async function runClaimsFuzzBench(): Promise<void> {
  const n = Number(process.env.CLAIMS_FUZZ_N ?? 3000);
  const seed = Number(process.env.CLAIMS_FUZZ_SEED ?? Date.now() % 1_000_000);
  const batchSize = Number(process.env.CLAIMS_FUZZ_BATCH ?? 200);
  const outDir = process.env.CLAIMS_FUZZ_OUT ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-claims-fuzz-'));
  heading(`claims-fuzz: ${n} awkward documents × 5 declarations, seed ${seed}, every claim checked by veraPDF`);
  if (!VERAPDF) process.stdout.write('VERAPDF is not set: claims are counted, not checked\n');
  function* documents(): Generator<ClaimsDocument> {
    for (let i = 0; i < n; i++)
      yield i % INVOICE_EVERY === INVOICE_EVERY - 1 ? invoiceDocument(seed, i) : awkwardDocument(seed, i);
  }
  // A loaded machine must not turn awkward documents into 504s that check nothing.
  const service = await startClaimsService({ RENDER_TIMEOUT_MS: process.env.CLAIMS_FUZZ_TIMEOUT_MS ?? '120000' });
  try {
    const summary = await runClaims(documents(), {
      render: service.render,
      concurrency: service.concurrency,
      batchSize,
      outDir,
      check: Boolean(VERAPDF),
      log: (line) => process.stdout.write(`  ${line}\n`),
    });
    process.stdout.write(
      `documents ${summary.documents}, renders ${summary.renders}, ${(summary.ms / 1000).toFixed(0)} s ` +
        `(renders done at ${(summary.renderMs / 1000).toFixed(0)} s; ${summary.jvms} veraPDF JVMs, ${(summary.jvmMs / 1000).toFixed(0)} s summed)\n`,
    );
    for (const profile of Object.keys(summary.claims).sort())
      process.stdout.write(
        `  ${profile.padEnd(10)} claimed ${String(summary.claims[profile]).padStart(6)}  checked ${String(summary.checked[profile] ?? 0).padStart(6)}\n`,
      );
    process.stdout.write(`false claims: ${summary.falseClaims.length}\n`);
    // An invoice a reader sees whole and not claimed means the check is stricter than what a reader sees.
    process.stdout.write(`invoices shown whole but not claimed Factur-X: ${summary.missedInvoices.length}\n`);
    for (const m of summary.missedInvoices) process.stdout.write(`  ${m.document} "${m.declaration}": ${m.warnings ?? ''}\n`);
    for (const f of summary.falseClaims)
      process.stdout.write(
        `  ${f.document} declared "${f.declaration}" claims ${f.profile}: ${f.rules.join(' ')}  ${f.file ?? ''}\n    [${f.constructs.join(', ')}]\n`,
      );
    process.stdout.write(`renders not 200: ${summary.failedRenders.length}\n`);
    for (const r of summary.failedRenders)
      process.stdout.write(`  ${r.document} "${r.declaration}": ${r.status} ${r.body.slice(0, 160)}\n`);
    if (summary.falseClaims.length > 0) process.stdout.write(`documents written to ${outDir}\n`);
  } finally {
    await service.close();
  }
}
