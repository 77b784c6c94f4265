import crypto from 'node:crypto';

/**
 * PostgreSQL and Redis suites run only when CI (or a developer) points at real servers. Without the
 * variable they are skipped, and say so loudly, so a green run without them is never mistaken.
 */
export const DATABASE_URL = process.env.DATABASE_URL;
export const REDIS_URL = process.env.REDIS_URL;

if (!DATABASE_URL) console.warn('\n*** DATABASE_URL is not set: PostgreSQL suites are SKIPPED ***\n');
if (!REDIS_URL) console.warn('\n*** REDIS_URL is not set: Redis suites are SKIPPED ***\n');

/** A schema/prefix name unique to this test run, so suites sharing one server do not collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
}
