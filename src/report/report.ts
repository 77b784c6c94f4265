/**
 * The render report: what a document could not get while it rendered (docs/rendering.md#when-a-document-cannot-get-everything),
 * and the record of one render that `GET /v1/renders/{id}` and the dashboard's Renders page show.
 * The renderer collects the entries; the render log (render/log/render-log.ts) keeps the records.
 */
import type { Claim } from './claims.js';

/** Why the egress policy refused a request the document made. */
export type BlockReason = 'private_address' | 'unresolvable' | 'scheme' | 'too_large';

/**
 * How a subresource failed below HTTP, or was refused by the browser for what its answer was; `cors`: its
 * server did not let the document use it (a cross-origin font or fetch without Access-Control-Allow-Origin);
 * `relative`: its address was relative to a document that has none, so nothing was asked for; `undecodable`:
 * an image whose bytes arrived and are not an image.
 */
export type NetworkFailure =
  | 'refused'
  | 'reset'
  | 'timeout'
  | 'tls'
  | 'cors'
  | 'csp'
  | 'credentials'
  | 'orb'
  | 'corp'
  | 'framing'
  | 'decoding'
  | 'redirects'
  | 'relative'
  | 'undecodable';

/**
 * What an existing PDF part carried that acts on its reader, taken out of an assembly; `attachment` is
 * kept (named so the reader knows it is there); `permissions`: what its owner password forbade (printing,
 * copying), which an assembly written without encryption no longer enforces.
 */
export type PartContent =
  | 'javascript'
  | 'launch'
  | 'submit_form'
  | 'import_data'
  | 'javascript_link'
  | 'signature_field'
  | 'attachment'
  | 'permissions';

/**
 * One thing the document could not get, in the order it was met. Every entry has `kind` and a
 * plain-words `message` a customer can act on; URLs are cut to 500 characters and `data:` URLs are
 * shown by their media type only.
 */
export type ReportEntry = (
  | { kind: 'resource_blocked'; url: string; reason: BlockReason; message: string }
  | { kind: 'resource_failed'; url: string; status?: number; error?: NetworkFailure; message: string }
  | { kind: 'font_failed'; family: string; url: string | null; message: string }
  | { kind: 'script_error'; text: string; message: string }
  | { kind: 'not_ready'; text: string; message: string }
  | { kind: 'printed_while_pending'; count: number; urls: string[]; message: string }
  | { kind: 'frames_missed'; count: number; message: string }
  | { kind: 'unresolved_reference'; target: string; message: string }
  | { kind: 'conformance'; profile: string; clause: string; element: string; message: string }
  | { kind: 'active_content'; content: PartContent; count: number; removed: boolean; message: string }
  | { kind: 'truncated'; dropped: number; message: string }
) & {
  /** In an assembly: the part whose render met it (`parts[2]`). */
  part?: string;
};

/** The kinds of report entries. */
export type ReportEntryKind = ReportEntry['kind'];

/** One render as the render log keeps it: a sync render (`api`) or a job's final attempt (`job`). */
export interface RenderRecord {
  /** The render id: the `X-Render-ID` of a sync render (`rnd_…`), or the job id (`job_…`). */
  id: string;
  accountId: string;
  /** The API key that asked for it; null when the key is unknown (a job whose key was deleted). */
  keyId: string | null;
  /** When the render was asked for (epoch ms). */
  createdAt: number;
  durationMs: number;
  source: 'api' | 'job';
  jobId: string | null;
  status: 'succeeded' | 'failed';
  error: { code: string; message: string } | null;
  pages: number | null;
  bytes: number | null;
  warnings: ReportEntry[];
  /** The standards the PDF claims (docs/standards.md); empty when it claims none, and for records older than claims. */
  claims: Claim[];
  /** Set for an assembly: its parts. */
  assembly?: RecordAssembly;
  /** The PDF's Title, as a report keeps document text (stored-report.ts `recordText`); absent when it has none. */
  title?: string;
  /** A job's `reference`; absent for a sync render and a job without one. */
  reference?: string;
}

/** One part of an assembly as its record keeps it. */
export interface RecordPart {
  /** Its place in the request: `parts[2]`. */
  label: string;
  kind: 'html' | 'pdf' | 'url';
  /** Its pages in the assembly, when known. */
  pages: number | null;
  /** Entries of the record's warnings that are this part's. */
  warnings: number;
  /** The address of a URL part, credentials hidden. */
  url?: string;
  /**
   * Its outline entry: the title the request gave, else its document's, else "Part N" (absent in records
   * older than part titles). Not named `title`: the Renders search reads `"title":"` as the record's own.
   */
  outlineTitle?: string;
  /** The page selection the request asked for (`"2-"`), absent when every page was kept. */
  selection?: string;
  /** Degrees clockwise its pages were turned, absent when they were not. */
  rotate?: number;
}

/** One stamp of an assembly as its record keeps it: where it lies, on which pages, and what it says. */
export interface RecordStamp {
  layer: 'over' | 'under';
  /** The assembly's pages it was asked for (`"2-"`), absent for every page. */
  selection?: string;
  /** How many pages it was drawn on. */
  stamped: number;
  /** The start of its visible text (placeholders such as `{{page}}` as written), absent when it shows none. */
  text?: string;
  /** The start of its HTML (its body's, when it has one), runs of whitespace as one space. */
  source: string;
}

/** One property the request gave the assembly's Info and XMP (`metadata.author`). */
export interface RecordMetadata {
  field: 'title' | 'author' | 'subject' | 'keywords' | 'lang';
  value: string;
}

/** How an assembly was split into a zip of files. */
export interface RecordSplit {
  by: 'parts' | 'every' | 'ranges';
  /** The pages per file of `{"every": N}`. */
  every?: number;
  /** How many files the zip holds. */
  files: number;
  /** The files' names in order, as many as a record keeps room for (the first ones). */
  names: string[];
}

/** What a record of an assembly (POST /v1/assemble, an assembly job) adds: its parts and how it was finished. */
export interface RecordAssembly {
  /** How many parts it had. */
  partCount: number;
  /** The parts in order, as many as a record keeps room for (the first ones). */
  parts: RecordPart[];
  /** Its stamps in the order laid, when it had any. */
  stamps?: RecordStamp[];
  /** The properties its request gave (in the order of the API's fields), when it gave any; never the first part's. */
  metadata?: RecordMetadata[];
  /** Its split, when the answer was a zip. */
  split?: RecordSplit;
}

/** Where finished renders are reported; the render log batches them into the store off the request path. */
export interface RenderRecorder {
  /** Queues one record; never throws and never waits on the store. */
  record(record: RenderRecord): void;
}

/** A recorder that keeps nothing: for tools that render without a store (the CLI, benches). */
export const DISCARD_RECORDS: RenderRecorder = { record() {} };

/** How many things a report says the document could not get: its entries, and those a `truncated` stands for. */
export function warningCount(warnings: readonly ReportEntry[]): number {
  return warnings.reduce((n, w) => n + (w.kind === 'truncated' ? w.dropped : 1), 0);
}
