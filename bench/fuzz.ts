/**
 * Fuzz bench (`npm run bench -- fuzz`, opt-in): the properties `npm test` runs with a fixed seed for a few
 * seconds, here with a fresh seed for FUZZ_S seconds (default 600): the metadata extractor and encoding sniffer
 * (fast-check and the corpus mutation fuzzer), every pathological input at 1.25 → 5 MB for linear time, and
 * POST /v1/render with hostile bodies through an in-process render app (real Chromium). Prints every failure
 * with the seed that reproduces it.
 */
import fc from 'fast-check';
import { buildRenderApp } from '../src/app/render-app.js';
import { extractMetadata } from '../src/metadata/extract.js';
import { assertShape, metadataProperties, mutationFuzz } from '../test/fuzz/metadata-properties.js';
import { growthRatio, PATHOLOGICAL } from '../test/fuzz/pathological.js';
import { printParamsProperty, renderRequestProperty } from '../test/fuzz/render-properties.js';
import { closeTestCore, createKey, createTestCore } from '../test/helpers/core.js';
import { fmt, heading, verdict } from './stats.js';

/** Shares of FUZZ_S: metadata properties, mutations, render requests with the page rules (the pathological pass comes first, untimed). */
const SHARES = { properties: 0.3, mutations: 0.2, render: 0.5 };

function report(name: string, details: fc.RunDetails<unknown>, failures: string[]): void {
  process.stdout.write(`${name.padEnd(78)} ${String(details.numRuns).padStart(8)} runs  seed ${details.seed}\n`);
  if (details.failed)
    failures.push(
      `${name}: seed ${details.seed}, path ${details.counterexamplePath}: ${String(details.errorInstance).slice(0, 400)}`,
    );
}

async function timed<T>(
  ms: number,
  run: (opts: fc.Parameters<T>) => Promise<fc.RunDetails<T>> | fc.RunDetails<T>,
): Promise<fc.RunDetails<T>> {
  return run({
    seed: Date.now() ^ (Math.random() * 2 ** 31),
    numRuns: Number.MAX_SAFE_INTEGER,
    interruptAfterTimeLimit: ms,
    markInterruptAsFailure: false,
  });
}

/** The fuzz section of `npm run bench`. */
export async function runFuzzBench(): Promise<void> {
  const seconds = Math.max(10, Number(process.env.FUZZ_S ?? 600));
  heading(`fuzz: ${seconds} s with fresh seeds (metadata extractor, encoding sniffer, render requests)`);
  const failures: string[] = [];

  process.stdout.write('pathological inputs, CPU ms at 1.25 MB → 5 MB (linear ≈ 4×, quadratic 16×):\n');
  for (const p of PATHOLOGICAL) {
    const extract = (bytes: Buffer, type: string) => assertShape(extractMetadata(bytes, type, 'https://example.com/'));
    try {
      const { ratio, smallMs, largeMs } = growthRatio(p, 1_310_720, extract);
      process.stdout.write(
        `  ${p.name.padEnd(30)} ${fmt(smallMs, 1, 8)} → ${fmt(largeMs, 1, 8)}  ${fmt(ratio, 1, 5)}×  < 8×: ${verdict(ratio < 8)}\n`,
      );
      if (ratio >= 8) failures.push(`${p.name}: ${ratio.toFixed(1)}× for 4× the bytes`);
    } catch (err) {
      failures.push(`${p.name}: ${(err as Error).message}`);
    }
  }

  const budget = seconds * 1000;
  const properties = metadataProperties();
  for (const { name, property } of properties) {
    report(name, await timed((budget * SHARES.properties) / properties.length, (o) => fc.check(property, o)), failures);
  }
  const seed = Date.now() & 0x7fffffff;
  const mutations = mutationFuzz(seed, Number.MAX_SAFE_INTEGER, Date.now() + budget * SHARES.mutations);
  process.stdout.write(`${'corpus mutations'.padEnd(78)} ${String(mutations.runs).padStart(8)} runs  seed ${seed}\n`);
  failures.push(...mutations.failures);

  report('dimensions and page rules', await timed(budget * 0.05, (o) => fc.check(printParamsProperty(), o)), failures);
  const core = await createTestCore({ RENDER_CONCURRENCY: '1', RENDER_RATE_LIMIT: '1000000' });
  const app = await buildRenderApp(core, {
    lookup: async () => {
      throw new Error('the fuzz bench never resolves names');
    },
  });
  try {
    const { key } = await createKey(core, 'render');
    report(
      'POST /v1/render with hostile bodies',
      await timed(budget * (SHARES.render - 0.05), (o) => fc.check(renderRequestProperty(app, key), o)),
      failures,
    );
  } finally {
    await app.close();
    await closeTestCore(core);
  }

  process.stdout.write(`\nfailures: ${failures.length}${failures.length ? `\n  ${failures.join('\n  ')}` : ''}\n`);
  process.stdout.write(`goal: no crash, no 500, no super-linear input: ${verdict(failures.length === 0)}\n`);
}
