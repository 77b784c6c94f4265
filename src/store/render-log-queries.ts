import { sql } from 'kysely';
// The record is the render report's own shape (report/report.ts), stored as it is.
import { type RenderRecord, warningCount } from '../report/report.js';
import { reportJson, storedFacts, storedReport } from '../report/stored-report.js';
import { CLAIMED_RENDERS, MAX_SEARCH, titleOrReference } from './render-log-search.js';
import type { RenderLogTable } from './schema.js';
import { bindQueries, type StoreContext } from './store-context.js';

// The render log's queries, written once for both dialects; render/log/render-log.ts batches the writes.

/** One render as a listing shows it: the record without its entries, with the key's name. */
export interface RenderSummary extends Omit<RenderRecord, 'warnings' | 'assembly' | 'title' | 'reference'> {
  warningCount: number;
  /** The PDF's Title (as a report keeps document text), or null when it has none. */
  title: string | null;
  /** A job's reference, or null. */
  reference: string | null;
  /** The name the key was given, or null (unnamed, or deleted with its account). */
  keyName: string | null;
  /** The key's display prefix (`pwr_live_…`), or null when the key is gone. */
  keyPrefix: string | null;
}

/** A page of an account's renders, newest first. */
export interface RenderLogPage {
  rows: RenderSummary[];
  /** Where the next (older) page starts, or null on the last page. */
  next: { createdAt: number; id: string } | null;
}

/** Store methods of the render log. */
export interface RenderLogStore {
  /** Inserts the records; a record whose id is already stored is left as it is (a batch written twice stays one row each). */
  insertRenderRecords(records: readonly RenderRecord[]): Promise<void>;
  /** The record with this id, only if it belongs to `accountId`. */
  findRenderRecord(id: string, accountId: string): Promise<RenderRecord | undefined>;
  /**
   * The account's renders, newest first, from after `cursor`; `problemsOnly`: failed or with warnings;
   * `claimedOnly`: the PDF claims a standard; `search`: the title or the job's reference contains it.
   */
  listRenderRecords(accountId: string, opts: RenderListOptions): Promise<RenderLogPage>;
  /** Bytes of report entries (their stored JSON) the account's records hold now. */
  renderLogBytes(accountId: string): Promise<number>;
  /** Deletes the records of renders asked for before `before`; returns how many. */
  purgeRenderRecords(before: number): Promise<number>;
}

/** Which page of an account's renders to list, and which renders. */
export interface RenderListOptions {
  limit: number;
  cursor?: { createdAt: number; id: string };
  problemsOnly?: boolean;
  claimedOnly?: boolean;
  /** Part of a title or reference (case-insensitive; at most 300 characters are used). */
  search?: string;
}

/** Failed or with warnings: the predicate of the partial index render_log_account_problems_idx and of its query, verbatim. */
export const PROBLEM_RENDERS = sql<boolean>`(status = 'failed' or warning_count > 0)`;

// 14 columns a row: 500 rows stay far below PostgreSQL's 65,535 parameters a statement.
const INSERT_CHUNK = 500;

function toRow(r: RenderRecord): RenderLogTable {
  return {
    id: r.id,
    account_id: r.accountId,
    key_id: r.keyId,
    created_at: r.createdAt,
    duration_ms: Math.round(r.durationMs),
    source: r.source,
    job_id: r.jobId,
    status: r.status,
    error_code: r.error?.code ?? null,
    error_message: r.error?.message ?? null,
    pages: r.pages,
    bytes: r.bytes,
    // The count X-Render-Warnings gives: a `truncated` entry stands for the entries it left out.
    warning_count: warningCount(r.warnings),
    // The entries, and the PDF's claims when it has any (report/stored-report.ts).
    warnings: reportJson(r.warnings, r.claims, r.assembly, { title: r.title, reference: r.reference }),
  };
}

const num = (v: number | null) => (v === null ? null : Number(v));

function toSummary(
  row: Omit<RenderLogTable, 'warnings'>,
): Omit<RenderSummary, 'keyName' | 'keyPrefix' | 'claims' | 'title' | 'reference'> {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    createdAt: Number(row.created_at),
    durationMs: Number(row.duration_ms),
    source: row.source as RenderRecord['source'],
    jobId: row.job_id,
    status: row.status as RenderRecord['status'],
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    pages: num(row.pages),
    bytes: num(row.bytes),
    warningCount: Number(row.warning_count),
  };
}

/**
 * See RenderLogStore.insertRenderRecords. A record of an account deleted meanwhile (a render in flight
 * while its account went) is left out: the accounts are read in the inserting transaction, on
 * PostgreSQL with a lock that holds off their deletion until the insert is done.
 */
export async function insertRenderRecords({ db, kind }: StoreContext, records: readonly RenderRecord[]) {
  if (records.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < records.length; i += INSERT_CHUNK) {
      const chunk = records.slice(i, i + INSERT_CHUNK);
      const accounts = trx
        .selectFrom('accounts')
        .select('id')
        .where('id', 'in', [...new Set(chunk.map((r) => r.accountId))]);
      const live = new Set((await (kind === 'postgres' ? accounts.forKeyShare() : accounts).execute()).map((a) => a.id));
      const rows = chunk.filter((r) => live.has(r.accountId)).map(toRow);
      if (rows.length === 0) continue;
      await trx
        .insertInto('render_log')
        .values(rows)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    }
  });
}

/** See RenderLogStore.renderLogBytes. */
export async function renderLogBytes({ db, kind }: StoreContext, accountId: string) {
  const size =
    kind === 'postgres'
      ? sql<number>`coalesce(sum(octet_length(warnings)), 0)`
      : sql<number>`coalesce(sum(length(cast(warnings as blob))), 0)`;
  const row = await db.selectFrom('render_log').select(size.as('bytes')).where('account_id', '=', accountId).executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

/** See RenderLogStore.findRenderRecord. */
export async function findRenderRecord({ db }: StoreContext, id: string, accountId: string) {
  const row = await db
    .selectFrom('render_log')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { warningCount: _count, ...summary } = toSummary(row);
  return { ...summary, ...storedReport(row.warnings) };
}

/** See RenderLogStore.listRenderRecords. */
export async function listRenderRecords(
  { db, kind }: StoreContext,
  accountId: string,
  opts: RenderListOptions,
): Promise<RenderLogPage> {
  let query = db
    .selectFrom('render_log')
    .leftJoin('api_keys', 'api_keys.id', 'render_log.key_id')
    .select([
      'render_log.id',
      'render_log.account_id',
      'render_log.key_id',
      'render_log.created_at',
      'render_log.duration_ms',
      'render_log.source',
      'render_log.job_id',
      'render_log.status',
      'render_log.error_code',
      'render_log.error_message',
      'render_log.pages',
      'render_log.bytes',
      'render_log.warning_count',
      'render_log.warnings',
      'api_keys.name as key_name',
      'api_keys.display_prefix as key_prefix',
    ])
    .where('render_log.account_id', '=', accountId);
  if (opts.problemsOnly) query = query.where(PROBLEM_RENDERS);
  if (opts.claimedOnly) query = query.where(CLAIMED_RENDERS);
  const search = opts.search?.trim().slice(0, MAX_SEARCH);
  if (search) query = query.where(titleOrReference(kind, search));
  const cursor = opts.cursor;
  if (cursor) {
    query = query.where((eb) =>
      eb.or([
        eb('render_log.created_at', '<', cursor.createdAt),
        eb.and([eb('render_log.created_at', '=', cursor.createdAt), eb('render_log.id', '<', cursor.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('render_log.created_at', 'desc')
    .orderBy('render_log.id', 'desc')
    .limit(opts.limit + 1)
    .execute();
  const page = rows.slice(0, opts.limit);
  const last = page.at(-1);
  return {
    rows: page.map((row) => {
      const facts = storedFacts(row.warnings);
      return {
        ...toSummary(row),
        claims: facts.claims,
        title: facts.title ?? null,
        reference: facts.reference ?? null,
        keyName: row.key_name,
        keyPrefix: row.key_prefix,
      };
    }),
    next: rows.length > opts.limit && last ? { createdAt: Number(last.created_at), id: last.id } : null,
  };
}

/** See RenderLogStore.purgeRenderRecords. */
export async function purgeRenderRecords({ db }: StoreContext, before: number) {
  const result = await db.deleteFrom('render_log').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The render log queries over one store context. */
export function renderLogQueries(ctx: StoreContext): RenderLogStore {
  return bindQueries(ctx, { insertRenderRecords, findRenderRecord, listRenderRecords, renderLogBytes, purgeRenderRecords });
}
