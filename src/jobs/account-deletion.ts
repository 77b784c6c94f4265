/**
 * An account's render jobs go with it: its unfinished jobs are canceled and its stored PDFs deleted
 * before the account's own rows go. Subscribed by the composition root (app/core.ts, the CLI's
 * `accounts delete`), so that accounts/ never imports jobs/.
 */
import type { AccountService } from '../accounts/accounts.js';
import type { JobFileStore } from '../store/job-file-queries.js';
import type { ResultStore } from './results/result-store.js';

/** What deleting an account's jobs needs. */
export interface AccountJobsDeps {
  store: Pick<JobFileStore, 'cancelAccountJobs'>;
  /** Where the account's job PDFs are deleted from (RESULT_STORE). */
  results: Pick<ResultStore, 'delete'>;
}

/** Makes every deletion of an account through `accounts` cancel its jobs and delete their PDFs first. */
export function deleteJobsWithAccount(accounts: Pick<AccountService, 'onDelete'>, deps: AccountJobsDeps): void {
  accounts.onDelete(async (accountId, now) => {
    for (const key of await deps.store.cancelAccountJobs(accountId, now)) await deps.results.delete(key);
  });
}
