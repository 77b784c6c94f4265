/**
 * An account's render log has a byte budget (RENDER_LOG_ACCOUNT_KIB, docs/deploy.md): the report entries
 * of its records are kept while the account's stored entries stay within it; past it a record is still
 * written (status, duration, pages, the count of warnings), its entries summed up in one `truncated`.
 * Each process counts what it writes on top of what the store held when the account was first seen;
 * the count is read again after every sweep of old records.
 */
import type { RenderRecord } from '../../report/report.js';
import { fitEntries, jsonBytes } from '../report/report-size.js';

/** The store's count of an account's stored entry bytes. */
export interface BudgetStorage {
  renderLogBytes(accountId: string): Promise<number>;
}

/** What the budget is: the bytes of entries one account may keep, and where the count starts from. */
export interface AccountBudgetOptions {
  store: BudgetStorage;
  bytes: number;
}

/** The words of the `truncated` entry of a record written past the budget ("a report keeps …"). */
const OVER_BUDGET = "no entries once its account's render log is over RENDER_LOG_ACCOUNT_KIB";

/** The per-account byte budget of one process's render log. */
export class AccountBudget {
  private readonly used = new Map<string, number>();

  constructor(private readonly opts: AccountBudgetOptions) {}

  /**
   * The records as they may be written: each keeps its entries while its account stays within the
   * budget, else one `truncated` stands for them. Counts what it lets through.
   */
  async fit(records: readonly RenderRecord[]): Promise<RenderRecord[]> {
    const fitted: RenderRecord[] = [];
    for (const record of records) {
      const used = await this.usedBy(record.accountId);
      const bytes = jsonBytes(record.warnings);
      const within = used + bytes <= this.opts.bytes;
      const warnings = within ? record.warnings : fitEntries(record.warnings, 0, OVER_BUDGET);
      this.used.set(record.accountId, used + (within ? bytes : jsonBytes(warnings)));
      fitted.push(within ? record : { ...record, warnings });
    }
    return fitted;
  }

  /** Forgets the counts (records were swept): the next record of each account reads its count again. */
  reset(): void {
    this.used.clear();
  }

  private async usedBy(accountId: string): Promise<number> {
    const known = this.used.get(accountId);
    if (known !== undefined) return known;
    const stored = await this.opts.store.renderLogBytes(accountId);
    this.used.set(accountId, stored);
    return stored;
  }
}
