import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: two test files at a time keeps Chromium-heavy suites from starving each other.
    maxWorkers: 2,
    pool: 'forks',
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // Dashboard password hashes at scrypt N=2^14 instead of 2^17 (PASSWORD_HASH_COST): the suite signs up and
    // logs in hundreds of times, and at 2^17 each costs a few hundred ms of a core. Inherited by every server
    // and CLI the tests start; test/accounts/password-cost.test.ts covers the production cost.
    env: { PASSWORD_HASH_COST: '14' },
  },
});
