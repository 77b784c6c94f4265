import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';

/** A running S3-protocol server on loopback with one empty bucket. */
export interface S3Server {
  /** Base URL for `S3_ENDPOINT` (path-style addressing: `endpoint/bucket/key`). */
  endpoint: string;
  bucket: string;
  /** Stops the server and removes its files. */
  close(): Promise<void>;
}

/**
 * The key pair s3rver knows. It refuses any other access key id (403 `InvalidAccessKeyId`) and
 * parses SigV4 headers, but does not recompute V4 signatures: a wrong secret goes unnoticed here.
 */
export const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** The environment a `pageworks serve` process needs to store results in `server`'s bucket. */
export function s3Env(server: S3Server, prefix = 'results'): Record<string, string> {
  return {
    RESULT_STORE: `s3://${server.bucket}/${prefix}`,
    S3_ENDPOINT: server.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
  };
}

/**
 * Starts s3rver (an S3 HTTP server: the REST API with XML errors, objects on disk) in this process on
 * a free 127.0.0.1 port with a temporary directory, and creates one bucket.
 *
 * A client that uploads a stream must set `requestChecksumCalculation: 'WHEN_REQUIRED'`: s3rver
 * predates the SDK's default trailing checksums (since @aws-sdk/client-s3 3.729) and stores a stream
 * sent as `aws-chunked` / `STREAMING-UNSIGNED-PAYLOAD-TRAILER` with its chunk framing in the object,
 * a silent corruption. A Buffer body is sent whole with a checksum header and is stored exactly.
 */
export async function startS3Server(bucket = 'pageworks-test'): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The same server in a child process, as a real S3 is: its request handling does not share the event
 * loop of the process that drives a bench (a bench's figures with S3 then measure the service, not s3rver
 * on the driver's loop). `close()` stops the child, and so does the end of this process (a killed test
 * worker leaves no server behind).
 */
export async function startS3ServerProcess(bucket = 'pageworks-test'): Promise<S3Server> {
  const main = path.join(path.dirname(fileURLToPath(import.meta.url)), 's3-server-main.ts');
  // Its stdin is a pipe from this process: when this process dies, however, the pipe closes and the child stops.
  const child = spawn(process.execPath, ['--import', 'tsx', main, bucket], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const first = await new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the S3 server process exited (${code}) before it listened`)));
  });
  const { endpoint } = JSON.parse(first) as { endpoint: string };
  return {
    endpoint,
    bucket,
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
