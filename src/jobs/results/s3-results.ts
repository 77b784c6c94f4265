import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { checkKey, type ResultStore, type StoredResult } from './result-store.js';

/** Where an S3 result store keeps its objects. */
export interface S3ResultStoreOptions {
  bucket: string;
  /** Key prefix without slashes at either end ('' for none). */
  prefix: string;
  /** An S3-compatible endpoint (MinIO, Ceph, R2, …): path-style addressing then. Unset: AWS. */
  endpoint?: string;
  region: string;
  /** Explicit credentials (tests); unset: the SDK's standard chain (AWS_ACCESS_KEY_ID, …). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** Results as objects in an S3-compatible bucket (the operator's endpoint, not a user-chosen address). */
export class S3ResultStore implements ResultStore {
  readonly kind = 's3' as const;
  readonly id: string;
  private readonly client: S3Client;

  constructor(private readonly opts: S3ResultStoreOptions) {
    // On Node 20 the SDK says at every start that its releases after January 2027 need Node 22. The
    // SDK's version is the lock file's choice, not the operator's, and Node 20's status is in the README
    // (supported while these machines run it); an operator who wants the notice sets the switch to false.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.id = `s3://${opts.bucket}/${opts.prefix}`;
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      // A PDF put is retried by the job (the attempt fails), not for minutes by the SDK.
      maxAttempts: 3,
      // An upload is streamed from its file: without this the SDK sends a stream as `aws-chunked` with a
      // trailing checksum (its default since 3.729), which S3-compatible stores that predate it (MinIO's
      // and Ceph's older releases, s3rver) keep with the chunk framing inside the object.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      // Each send resolved the whole middleware stack again; resolved once per command kind (nothing here
      // adds middleware to a command), a PDF's put cost about 0.4 ms less CPU.
      cacheMiddleware: true,
    });
  }

  private key(key: string): string {
    checkKey(key);
    return this.opts.prefix === '' ? key : `${this.opts.prefix}/${key}`;
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.opts.bucket,
        Key: this.key(key),
        Body: bytes,
        ContentType: key.endsWith('.zip') ? 'application/zip' : 'application/pdf',
      }),
    );
  }

  async putFile(key: string, file: string): Promise<void> {
    const { size } = await fs.promises.stat(file);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.opts.bucket,
        Key: this.key(key),
        Body: fs.createReadStream(file),
        ContentLength: size,
        ContentType: 'application/pdf',
      }),
    );
  }

  async get(key: string): Promise<StoredResult | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
      if (!out.Body) return undefined;
      // In Node the body is the HTTP response stream itself.
      return { body: out.Body as Readable, bytes: Number(out.ContentLength) };
    } catch (err) {
      if (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404))
        return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<boolean> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
    return true;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
