/**
 * Opens the result store the configuration names: files under the data dir unless `RESULT_STORE` names
 * an S3 bucket. Apart from the interface so that the backends need not import their chooser.
 */
import path from 'node:path';
import type { Config } from '../../config.js';
import { FileResultStore } from './file-results.js';
import type { ResultStore } from './result-store.js';
import { S3ResultStore } from './s3-results.js';

/** The result store the configuration asks for. */
export function openResultStore(
  config: Pick<Config, 'resultStore' | 's3Endpoint' | 'dataDir'>,
  env: Record<string, string | undefined> = process.env,
): ResultStore {
  if (!config.resultStore) return new FileResultStore(path.join(config.dataDir, 'results'));
  const url = new URL(config.resultStore);
  return new S3ResultStore({
    bucket: url.hostname,
    prefix: url.pathname.replace(/^\/+/, '').replace(/\/*$/, ''),
    endpoint: config.s3Endpoint,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
  });
}
