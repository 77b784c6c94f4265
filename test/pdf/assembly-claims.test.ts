/**
 * The assembly claims test, fixed seed: generated POST /v1/assemble bodies (test/pdf/claims/assembly-requests.ts)
 * of parts declaring profiles, finished in every way a request can (part titles of any character, pages,
 * rotation, stamps, metadata, split); every file of every answer must claim what X-Render-Claims says, and
 * veraPDF must pass each claim. The seed holds the requests that found stamps drawing a part's title of
 * noncharacters and control characters as empty boxes under a PDF/A claim (requests 21, 22 and 62). The
 * same runner runs hundreds with a fresh seed in `npm run bench -- assembly-claims-fuzz`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAssemblyClaims } from './claims/assembly-claims-runner.js';
import { assemblyCase } from './claims/assembly-requests.js';
import { type ClaimsService, startClaimsService } from './claims/claims-service.js';
import { VERAPDF, VERAPDF_SKIPPED } from './verapdf.js';

const SEED = 8;
const REQUESTS = 150;

let service: ClaimsService | undefined;
beforeAll(async () => {
  // The claims are the subject here, not render time: a loaded CI machine must not turn a render into a 504.
  if (VERAPDF) service = await startClaimsService({ RENDER_TIMEOUT_MS: '120000' });
});
afterAll(() => service?.close());

describe('a claim is a promise, on finished assemblies', () => {
  it(`${REQUESTS} assemblies of seed ${SEED}: every file claims what X-Render-Claims says, and veraPDF passes it`, {
    // Half a minute on a quiet 2-core machine; the bound is for loaded ones.
    timeout: 600_000,
  }, async () => {
    if (!service) {
      console.log(VERAPDF_SKIPPED);
      return;
    }
    const cases = Array.from({ length: REQUESTS }, (_, i) => assemblyCase(SEED, i));
    const summary = await runAssemblyClaims(cases, {
      assemble: service.assemble,
      concurrency: service.concurrency,
      batchSize: 40,
      check: true,
    });
    console.log(
      `assembly claims: ${summary.requests} requests, ${summary.files} files, claims ${JSON.stringify(summary.claims)}, ` +
        `${(summary.ms / 1000).toFixed(0)} s`,
    );
    expect(summary.refused).toEqual([]);
    expect(summary.falseClaims).toEqual([]);
    // Not vacuous: the seed finishes in every way, and claims every profile on several files, each checked.
    const used = new Set(cases.flatMap((c) => c.constructs.map((k) => k.split(':')[0])));
    for (const way of ['part-title', 'pages', 'rotate', 'stamp', 'metadata.title', 'metadata.lang', 'split'])
      expect(used.has(way), way).toBe(true);
    for (const profile of ['PDF/A-2b', 'PDF/A-2u', 'PDF/A-3b', 'PDF/UA-1']) {
      expect(summary.claims[profile] ?? 0, profile).toBeGreaterThanOrEqual(profile === 'PDF/UA-1' ? 2 : 8);
      expect(summary.checked[profile], profile).toBe(summary.claims[profile]);
    }
  });
});
