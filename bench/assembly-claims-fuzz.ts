/**
 * The assembly claims run (`npm run bench -- assembly-claims-fuzz`, opt-in): ASSEMBLY_CLAIMS_N generated
 * POST /v1/assemble bodies (default 300) from seed ASSEMBLY_CLAIMS_SEED (default: the clock), declared parts
 * finished in every way a request can (titles, pages, rotation, stamps, metadata, split), every file of
 * every answer held to its X-Render-Claims and checked by veraPDF (VERAPDF). Prints the figures and every
 * false claim; the bodies of false claims are written to ASSEMBLY_CLAIMS_OUT (default a temp folder).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runAssemblyClaims } from '../test/pdf/claims/assembly-claims-runner.js';
import { type AssemblyCase, assemblyCase } from '../test/pdf/claims/assembly-requests.js';
import { startClaimsService } from '../test/pdf/claims/claims-service.js';
import { VERAPDF } from '../test/pdf/verapdf.js';
import { heading } from './stats.js';

/** The assembly-claims-fuzz section of `npm run bench`. */
export async function runAssemblyClaimsFuzzBench(): Promise<void> {
  const n = Number(process.env.ASSEMBLY_CLAIMS_N ?? 300);
  const seed = Number(process.env.ASSEMBLY_CLAIMS_SEED ?? Date.now() % 1_000_000);
  const outDir = process.env.ASSEMBLY_CLAIMS_OUT ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-assembly-claims-fuzz-'));
  heading(
    `assembly-claims-fuzz: ${n} finished assemblies of declared parts, seed ${seed}, every claim of every file checked by veraPDF`,
  );
  if (!VERAPDF) process.stdout.write('VERAPDF is not set: claims are counted, not checked\n');
  function* cases(): Generator<AssemblyCase> {
    for (let i = 0; i < n; i++) yield assemblyCase(seed, i);
  }
  const service = await startClaimsService({ RENDER_TIMEOUT_MS: '120000' });
  try {
    const summary = await runAssemblyClaims(cases(), {
      assemble: service.assemble,
      concurrency: service.concurrency,
      batchSize: 100,
      check: VERAPDF !== undefined,
      outDir,
      log: (line) => process.stdout.write(`  ${line}\n`),
    });
    process.stdout.write(
      `requests ${summary.requests}, files ${summary.files}, ${(summary.ms / 1000).toFixed(0)} s\n` +
        `claims   ${JSON.stringify(summary.claims)}\nchecked  ${JSON.stringify(summary.checked)}\n` +
        `refused  ${summary.refused.length}${
          summary.refused.length
            ? `: ${summary.refused
                .slice(0, 5)
                .map((r) => `${r.request} ${r.status} ${r.body.slice(0, 120)}`)
                .join('; ')}`
            : ''
        }\n` +
        `false claims: ${summary.falseClaims.length}${summary.falseClaims.length ? ` (bodies in ${outDir})` : ''}\n`,
    );
  } finally {
    await service.close();
  }
}
