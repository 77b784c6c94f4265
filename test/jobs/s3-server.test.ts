import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_CREDENTIALS, type S3Server, startS3Server } from '../helpers/s3-server.js';

/** The test S3 server itself: a real SigV4 server that keeps bytes exactly, for the result-store tests to trust. */
describe('test S3 server (s3rver on loopback)', () => {
  let server: S3Server;
  const client = (credentials: { accessKeyId: string; secretAccessKey: string } = S3_CREDENTIALS) =>
    new S3Client({
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });

  beforeAll(async () => {
    server = await startS3Server();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('keeps a streamed upload byte for byte, lists it, serves it, deletes it', async () => {
    expect(server.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const s3 = client();
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(200_000, 7), Buffer.from('\n%%EOF\n')]);
    // A stream of known length, as a worker uploads a rendered PDF.
    await s3.send(
      new PutObjectCommand({
        Bucket: server.bucket,
        Key: 'results/job_a.pdf',
        Body: Readable.from([pdf.subarray(0, 65_536), pdf.subarray(65_536)]),
        ContentLength: pdf.length,
        ContentType: 'application/pdf',
      }),
    );
    const head = await s3.send(new HeadObjectCommand({ Bucket: server.bucket, Key: 'results/job_a.pdf' }));
    expect(head.ContentLength).toBe(pdf.length);
    expect(head.ContentType).toBe('application/pdf');
    const got = await s3.send(new GetObjectCommand({ Bucket: server.bucket, Key: 'results/job_a.pdf' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(pdf)).toBe(true);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: 'results/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['results/job_a.pdf']);

    await s3.send(new DeleteObjectCommand({ Bucket: server.bucket, Key: 'results/job_a.pdf' }));
    await expect(s3.send(new GetObjectCommand({ Bucket: server.bucket, Key: 'results/job_a.pdf' }))).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
  });

  it('refuses an unknown access key and a missing bucket, as S3 does', async () => {
    const stranger = client({ accessKeyId: 'AKIANOTKNOWN', secretAccessKey: S3_CREDENTIALS.secretAccessKey });
    await expect(
      stranger.send(new PutObjectCommand({ Bucket: server.bucket, Key: 'x', Body: Buffer.from('x') })),
    ).rejects.toMatchObject({ name: 'InvalidAccessKeyId', $metadata: { httpStatusCode: 403 } });
    await expect(
      client().send(new PutObjectCommand({ Bucket: 'no-such-bucket', Key: 'x', Body: Buffer.from('x') })),
    ).rejects.toMatchObject({ name: 'NoSuchBucket', $metadata: { httpStatusCode: 404 } });
  });
});
