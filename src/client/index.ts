/**
 * `pageworks/client`: typed clients for the render and metadata services. The package's public entry;
 * everything a caller needs is named here.
 */

export type { RenderErrorCode } from '../errors.js';
export type { AssembleFile, AssembleFiles } from './assemble-form.js';
export { type Certificate, CertificatesClient, type CertificateUpload } from './certificates-client.js';
export { type ClientErrorCode, MetadataApiError, type MetadataErrorCode, PageworksError, RenderApiError } from './errors.js';
export { JobsClient, type ListOptions, type SubmitOptions, type WaitOptions } from './jobs-client.js';
export type { JobList, JobObject, JobRequest, JobStatus } from './jobs-types.js';
export { type Metadata, MetadataClient } from './metadata-client.js';
export {
  type AssembleCallOptions,
  type AssembleRequest,
  type AssembleSplit,
  type RenderCallOptions,
  RenderClient,
  type RenderedPdf,
  type RenderedZip,
  type RenderOptions,
  type RenderRequest,
  type RenderStream,
} from './render-client.js';
export type { RenderReport, ReportEntry } from './render-report.js';
export type { RetryListener, RetryOptions } from './retry.js';
export type { CallOptions, ClientOptions } from './transport.js';
export {
  type JobEvent,
  type VerifyOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhook-verify.js';
export type { ZipFile } from './zip-entries.js';
