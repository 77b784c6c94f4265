/**
 * Assembling PDFs as the rest of `src/` sees it: the request, the run (parts, merge, protect, sign), the
 * route. Modules outside `src/assemble/` import from here.
 */
export { type AssemblyDeps, type AssemblyResult, runAssembly } from './assembly.js';
export { PDF_STEPS, pdfSteps } from './default-steps.js';
export { acceptMultipart, multipartDocs, requestUploads } from './multipart-parser.js';
export type { Uploads } from './multipart-upload.js';
export { removeUploads } from './multipart-upload.js';
export type { PdfSteps, Signer } from './pdf-steps.js';
export { registerAssembleRoutes } from './routes.js';
export {
  ASSEMBLE_JOB_MAX_PARTS,
  type AssembleRequest,
  AssembleRequestSchema,
  MAX_ASSEMBLE_BODY_BYTES,
  UPLOADED_NAMES,
  UPLOADS_NOT_PDF,
} from './schema.js';
export { validateAssembleRequest } from './validate-request.js';
