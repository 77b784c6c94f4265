/** The render report as GET /v1/renders/{id} answers it (docs/api.md#get-v1rendersid). */
import type { ReportEntry } from '../report/report.js';

export type { ReportEntry };

/** One render's record: what it was, how it ended, and what its document could not get. */
export interface RenderReport {
  /** The X-Render-ID of a sync render (`rnd_…`), or the job id (`job_…`). */
  id: string;
  /** When it was asked for (RFC 3339). */
  created_at: string;
  duration_ms: number;
  source: 'api' | 'job';
  job_id: string | null;
  status: 'succeeded' | 'failed';
  error: { code: string; message: string } | null;
  pages: number | null;
  bytes: number | null;
  /** In the order met, at most 100 then one `truncated`. */
  warnings: ReportEntry[];
  /** The standards the PDF claims (docs/standards.md); empty when its document declared none or met none. */
  claims: Array<'PDF/A-2b' | 'PDF/A-2u' | 'PDF/A-3b' | 'PDF/A-3u' | 'PDF/UA-1' | 'Factur-X'>;
  /** An assembly only: how many parts it had. */
  part_count?: number;
  /** An assembly only: its parts in order (a record keeps the first ~250 of a larger one). */
  parts?: Array<{ label: string; kind: 'html' | 'pdf' | 'url'; pages: number | null; warnings: number; url?: string }>;
}
