import { newId } from '../ids.js';
import type { ActivityEntry, ActivityKind, RecoveryStore } from '../store/recovery-queries.js';

/** Where a dashboard action came from, as the activity log records it. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

let sequence = 0;

/**
 * Ids sort like the entries were written (time, then this process's sequence), so entries of the same
 * millisecond keep their order in the log (it is ordered by time, then id); the random tail keeps ids
 * of several processes apart.
 */
function activityId(at: number): string {
  sequence = (sequence + 1) % 0x1000000;
  return `act_${at.toString(16).padStart(12, '0')}${sequence.toString(16).padStart(6, '0')}${newId('').slice(1, 15)}`;
}

/** Longest user agent kept: enough to tell browsers apart, not a place to store megabytes. */
const MAX_USER_AGENT = 300;

/** An activity log page: the entries and whether an older page exists. */
export interface ActivityPage {
  entries: ActivityEntry[];
  hasMore: boolean;
}

/** Per-account log of sign-ins, password changes, key and limit changes, ended sessions and deletions. */
export class ActivityLog {
  constructor(
    private readonly store: RecoveryStore,
    /** Entries older than this many days are pruned. */
    readonly retentionDays: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Writes one entry. */
  async record(
    accountId: string,
    kind: ActivityKind,
    actor: ActivityEntry['actor'],
    opts: { client?: ClientInfo; detail?: string } = {},
  ): Promise<void> {
    await this.store.addActivity(this.entry(accountId, kind, actor, opts));
  }

  /** Builds an entry without writing it (the deletion tombstone is written in the deletion's transaction). */
  entry(
    accountId: string,
    kind: ActivityKind,
    actor: ActivityEntry['actor'],
    opts: { client?: ClientInfo; detail?: string } = {},
  ): ActivityEntry {
    const at = this.now();
    return {
      id: activityId(at),
      accountId,
      at,
      kind,
      actor,
      ip: opts.client?.ip ?? null,
      userAgent: opts.client?.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
      detail: opts.detail ?? null,
    };
  }

  /** One page (from 1) of the account's entries, newest first. */
  async page(accountId: string, page: number, perPage = 50): Promise<ActivityPage> {
    const rows = await this.store.listActivity(accountId, perPage + 1, (page - 1) * perPage);
    return { entries: rows.slice(0, perPage), hasMore: rows.length > perPage };
  }

  /** Deletes entries past the retention period; returns how many. */
  prune(): Promise<number> {
    return this.store.pruneActivity(this.now() - this.retentionDays * 86_400_000);
  }
}
