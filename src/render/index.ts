/**
 * The render service as the rest of `src/` sees it: the request (schema, options, strict handling),
 * the browser pool, the report and the render log, the HTTP routes, metrics and the command line.
 * Modules outside `src/render/` import from here, never from a file inside it. The report's entries,
 * record and stored form live in `src/report/` (below the store, which reads them too) and are re-exported.
 */

export {
  DISCARD_RECORDS,
  type RecordAssembly,
  type RecordMetadata,
  type RecordPart,
  type RecordSplit,
  type RecordStamp,
  type RenderRecord,
  type RenderRecorder,
  type ReportEntry,
  warningCount,
} from '../report/report.js';
export { ReportEntrySchema, storedEntries } from '../report/report-schema.js';
export { type RecordFacts, recordText, reportJson, storedFacts, storedReport } from '../report/stored-report.js';
export { runRenderCli } from './cli.js';
export { checkFontCoverage, describeCoverage, fcListRunner } from './document/font-coverage.js';
export { RENDER_LOG_FLUSH_MS, RenderLog } from './log/render-log.js';
export { registerRenderLogRoutes } from './log/render-log-routes.js';
export { recordRender } from './log/render-record.js';
export { createRenderMetrics } from './metrics.js';
export { BrowserPool } from './pool/browser-pool.js';
export { FairQueue } from './pool/fair-queue.js';
export type { RenderResult } from './pool/render-attempt.js';
export { CLAIMS_HEADER, ClaimsHeaderDoc, ClaimsSchema, claimsHeaderValue } from './report/claims-header.js';
export { toPrintParams } from './request/options.js';
export {
  HTML_BODY_HOLDS,
  MAX_BODY_BYTES,
  RenderErrorSchema,
  RenderOptionsSchema,
  type RenderRequest,
  RenderRequestSchema,
  validateRenderRequest,
} from './request/schema.js';
export { incompleteError, PreferHeaders, prefersStrict, STRICT_APPLIED } from './request/strict.js';
export { registerRenderRoutes, sendRenderError } from './routes.js';
