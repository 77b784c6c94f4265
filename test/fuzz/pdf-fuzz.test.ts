/**
 * Mutated PDFs, PKCS#12 files and Factur-X XMLs against a running service, fixed seed (about a minute; the
 * bench's `pdf-fuzz` runs 20,000 inputs): every answer 200/201 or a 4xx within its deadline, every assembly
 * answered with a PDF whose objects all parse and whose pages look as the part's (pdf-fuzz-run.ts), the
 * process's peak memory under the documented budget, and another account's renders unhurt. PKCS#12 bit
 * flips leave the MAC's iteration count alone here (see mutatePkcs12).
 */
import { describe, expect, it } from 'vitest';
import { runPdfFuzz } from './pdf-fuzz-run.js';

const SEED = 15;
/** docs/deploy.md "Sizing": 512 MB + 384 MB per concurrent render, for the whole instance; the service here runs one. */
const MAX_PEAK_RSS_MIB = 512 + 384;

describe('PDF fuzzing (fixed seed)', () => {
  it('300 mutated inputs: 200/201 or 4xx in time, assemblies readable, memory bounded, another account unhurt', async () => {
    const report = await runPdfFuzz({ seed: SEED, inputs: 300, maxXmlRenders: 6, pkcs12MacTail: true });
    expect(report.failures).toEqual([]);
    expect(report.inputs).toBe(300);
    expect(report.peakRssMib).toBeLessThan(MAX_PEAK_RSS_MIB);
    expect(report.bystander.renders).toBeGreaterThan(0);
    expect(report.bystander.failed).toBe(0);
    console.log(JSON.stringify(report));
  }, 120_000);
});
