/**
 * Adversarial inputs for the metadata extractor and the encoding sniffer, fixed seed (a few seconds; the bench's
 * `fuzz` section runs the same properties for minutes): never throws, always the eight-field shape, the same
 * fields however the bytes arrive, the corpus mutated, and the pathological inputs at 5 MB in time linear in
 * their size.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractMetadata } from '../../src/metadata/extract.js';
import { assertShape, extractChunked, metadataProperties, mutationFuzz } from './metadata-properties.js';
import { growthRatio, LEGACY_ENCODINGS, PATHOLOGICAL } from './pathological.js';

const SEED = 15;
const URL = 'https://example.com/page';
const FIVE_MB = 5 * 1024 * 1024;
const extract = (bytes: Buffer, contentType: string) => assertShape(extractMetadata(bytes, contentType, URL));
const byEncoding = (p: { name: string }) => p.name.startsWith('noise as ');
/** Linear is ~4× for 4× the bytes, quadratic 16×: 8× leaves room for the garbage collector and a shared machine. */
const MAX_GROWTH = 8;
/** The largest input a second measurement is given. */
const MAX_CONFIRM_BYTES = 16 * 1024 * 1024;

/**
 * growthRatio, measured again one size up (or at the same size, for inputs already that large) while it is
 * over the bound, at most twice, and the lowest kept: a quadratic input is 16× at every size, while a
 * collection or a busy neighbour's use of the cache does not follow an input up its sizes. Shift_JIS noise
 * read 8.5× once in CI (14 → 123 ms), and 9.3× then 8.3× in another (24 → 224 ms, 183 → 1,524 ms); on a
 * quiet machine it is 3 to 5× at every size up to 16 MB.
 */
function confirmedGrowth(p: Parameters<typeof growthRatio>[0], n: number, runs?: number) {
  const told = (m: ReturnType<typeof growthRatio>) =>
    `${m.bytes} → ${4 * m.bytes} bytes: ${m.smallMs.toFixed(1)} ms → ${m.largeMs.toFixed(1)} ms CPU`;
  let measured = growthRatio(p, n, extract, runs);
  let ratio = measured.ratio;
  const said = [told(measured)];
  for (let again = 0; again < 2 && ratio >= MAX_GROWTH; again++) {
    const next = 16 * measured.bytes <= MAX_CONFIRM_BYTES ? 4 * measured.bytes : measured.bytes;
    measured = growthRatio(p, next, extract, runs);
    ratio = Math.min(ratio, measured.ratio);
    said.push(told(measured));
  }
  return { ratio, said: said.join('; then ') };
}

describe('metadata fuzzing (fixed seed)', () => {
  for (const { name, property } of metadataProperties()) {
    it(name, () => {
      fc.assert(property, { seed: SEED, numRuns: 400 });
    });
  }

  it('survives 200 mutations of the corpus pages', () => {
    expect(mutationFuzz(SEED, 200).failures).toEqual([]);
  });
});

/** The inputs the issue names; each is also checked at 5 MB chunked as a fetch delivers it. */
const LISTED = [
  '<a without >',
  'unclosed comment',
  'nested div',
  'meta charset every 10 bytes',
  'huge title',
  'unclosed title',
  'broken UTF-8',
];
/** Super-linear before their fix (GC on one growing string): measured at the full 1.25 → 5 MB. */
const REGRESSIONS = ['unclosed title', 'huge title', 'entity soup'];

describe('pathological inputs', () => {
  it.each(PATHOLOGICAL.filter((p) => !byEncoding(p)).map((p) => [p.name, p] as const))(
    '%s: 5 MB, eight fields, linear time',
    (name, p) => {
      const bytes = p.build(FIVE_MB);
      const whole = extractMetadata(bytes, p.contentType, URL);
      assertShape(whole);
      if (LISTED.includes(name)) expect(extractChunked(bytes, p.contentType, URL, [0.1, 0.3, 0.5, 0.7, 0.9])).toEqual(whole);
      // The regressions are measured from 5 MB up: below about 2.5 MB, V8 12+ (Node 24) keeps a long string in
      // a cheaper regime, so 1.25 MB → 5 MB measured 11× there while 5 MB → 10 MB was 1.8× (linear).
      const n = REGRESSIONS.includes(name) ? FIVE_MB : 256 * 1024;
      const { ratio, said } = confirmedGrowth(p, n);
      expect(ratio, said).toBeLessThan(MAX_GROWTH);
    },
  );

  it('the issue-listed inputs give the fields a browser would', () => {
    const title = (name: string) =>
      extractMetadata(PATHOLOGICAL.find((p) => p.name === name)!.build(FIVE_MB), 'text/html', URL).title;
    expect(title('<a without >')).toBeNull();
    expect(title('nested div')).toBe('deep');
    expect(title('huge title')?.length).toBeGreaterThan(FIVE_MB - 100);
    expect(title('unclosed comment')).toBe('t');
  });

  it.each(LEGACY_ENCODINGS)('noise declared as %s: eight fields (shape checked by growthRatio), linear time', (label) => {
    const p = PATHOLOGICAL.find((q) => q.name === `noise as ${label}`)!;
    const { ratio, said } = confirmedGrowth(p, 64 * 1024, 5);
    expect(ratio, said).toBeLessThan(MAX_GROWTH);
  });
});
