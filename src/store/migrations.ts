import type { Migration } from 'kysely';
import { initial } from './migrations/0001-initial.js';
import { accountRecovery } from './migrations/0002-account-recovery.js';
import { usagePerKey } from './migrations/0003-usage-per-key.js';
import { credentialVersion } from './migrations/0004-credential-version.js';
import { renderJobs } from './migrations/0005-render-jobs.js';
import { webhooks } from './migrations/0006-webhooks.js';
import { renderLog } from './migrations/0007-render-log.js';
import { jobReport } from './migrations/0007b-job-report.js';
import { jobLimits } from './migrations/0008-job-limits.js';
import { webhookRotation } from './migrations/0009-webhook-rotation.js';
import { signingCertificates } from './migrations/0010-signing-certificates.js';
import { jobUploads } from './migrations/0011-job-uploads.js';

/**
 * The schema's history. One set serves SQLite and PostgreSQL: only portable column types
 * (text, integer, bigint) are used; PostgreSQL's int8 is parsed back to a JS number by the adapter.
 * They apply in name order: a new one takes the next number, `0012_…` (migration-order.ts, tested),
 * and a name once released never changes (stores record it). Each is a file of migrations/ named
 * after it (`0012_what_it_does` in `migrations/0012-what-it-does.ts`), added to this record.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_account_recovery': accountRecovery,
  '0003_usage_per_key': usagePerKey,
  '0004_credential_version': credentialVersion,
  '0005_render_jobs': renderJobs,
  '0006_webhooks': webhooks,
  '0007_render_log': renderLog,
  '0008_job_limits': jobLimits,
  '0009_webhook_rotation': webhookRotation,
  '0007b_job_report': jobReport,
  '0010_signing_certificates': signingCertificates,
  '0011_job_uploads': jobUploads,
};
