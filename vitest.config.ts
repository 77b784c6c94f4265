import { defineConfig } from 'vitest/config';

/**
 * Files that need a process of their own: they read state a module keeps for the process's life (the id
 * clock, the scratch directories swept once a process, the PDF engine's private directory) or measure
 * the process itself (resident memory, warnings it prints), so another file run before them in the same
 * process would change what they see.
 */
const OWN_PROCESS = [
  'test/ids.test.ts',
  'test/scratch-dirs.test.ts',
  'test/pdf/engine.test.ts',
  'test/pdf/linear-readers.test.ts',
  'test/metadata/faults.test.ts',
  'test/render/report-security-memory.test.ts',
  'test/render/api.test.ts',
  'test/fuzz/pdf-fuzz.test.ts',
  'test/assemble/untrusted-parts.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: two test files at a time keeps Chromium-heavy suites from starving each other.
    maxWorkers: 2,
    pool: 'forks',
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // The PDF worker built once into one file, which the services the tests start fork (test/global-setup.ts).
    globalSetup: ['./test/global-setup.ts'],
    // Dashboard password hashes at scrypt N=2^14 instead of 2^17 (PASSWORD_HASH_COST): the suite signs up and
    // logs in hundreds of times, and at 2^17 each costs a few hundred ms of a core. Inherited by every server
    // and CLI the tests start; test/accounts/password-cost.test.ts covers the production cost.
    env: { PASSWORD_HASH_COST: '14' },
    projects: [
      // Each worker process runs file after file on the modules it has loaded: loading them afresh for each
      // of the suite's 238 files (about 2 s of a core each: Fastify, the AWS SDK, node-forge, pg, ioredis
      // and the service's own) was a fifth of the suite's time. Every file starts its own services and
      // closes them, so nothing a test sees is left over from another file.
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: OWN_PROCESS, isolate: false } },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
    ],
  },
});
