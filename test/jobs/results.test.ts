/**
 * The result store contract, against real backends: files under a temporary directory, and a real
 * S3-protocol server (s3rver) on loopback through @aws-sdk/client-s3.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { FileResultStore } from '../../src/jobs/results/file-results.js';
import { openResultStore } from '../../src/jobs/results/open-result-store.js';
import type { ResultStore } from '../../src/jobs/results/result-store.js';
import { S3ResultStore } from '../../src/jobs/results/s3-results.js';
import { S3_CREDENTIALS, startS3Server } from '../helpers/s3-server.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

const backends: Array<{ name: string; open(): Promise<{ store: ResultStore; close(): Promise<void> }> }> = [
  {
    name: 'files',
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-results-'));
      const store = new FileResultStore(dir);
      return { store, close: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 's3 (s3rver on loopback)',
    async open() {
      const s3 = await startS3Server();
      const store = new S3ResultStore({
        bucket: s3.bucket,
        prefix: 'results/v1',
        endpoint: s3.endpoint,
        region: 'us-east-1',
        credentials: S3_CREDENTIALS,
      });
      return {
        store,
        close: async () => {
          await store.close();
          await s3.close();
        },
      };
    },
  },
];

for (const backend of backends) {
  describe(`result store: ${backend.name}`, () => {
    let store: ResultStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await backend.open());
    });
    afterAll(async () => close?.());

    it('puts, streams back the same bytes, replaces, and deletes', async () => {
      const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300_000, 7)]);
      await store.put('acc_1/job_1.pdf', bytes);
      const got = await store.get('acc_1/job_1.pdf');
      expect(got?.bytes).toBe(bytes.length);
      expect((await readAll(got!.body)).equals(bytes)).toBe(true);
      await store.put('acc_1/job_1.pdf', Buffer.from('%PDF-2'));
      expect((await readAll((await store.get('acc_1/job_1.pdf'))!.body)).toString()).toBe('%PDF-2');
      await store.delete('acc_1/job_1.pdf');
      expect(await store.get('acc_1/job_1.pdf')).toBeUndefined();
      // Deleting what is not there is fine (a second DELETE, the sweep after a DELETE).
      await store.delete('acc_1/job_1.pdf');
      expect(await store.get('acc_1/never.pdf')).toBeUndefined();
    });

    it('stores a file streamed from disk byte for byte (an upload of a job), and deletes it', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-upload-'));
      try {
        const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(700_000, 3), Buffer.from('\n%%EOF\n')]);
        const file = path.join(dir, 'terms.pdf');
        fs.writeFileSync(file, bytes);
        await store.putFile('acc_1/job_2-upload-1.pdf', file);
        const got = await store.get('acc_1/job_2-upload-1.pdf');
        expect(got?.bytes).toBe(bytes.length);
        expect((await readAll(got!.body)).equals(bytes)).toBe(true);
        await store.delete('acc_1/job_2-upload-1.pdf');
        expect(await store.get('acc_1/job_2-upload-1.pdf')).toBeUndefined();
        await expect(store.putFile('../x.pdf', file)).rejects.toThrow(/not a result key/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('refuses keys that are not job result keys', async () => {
      for (const key of ['../x.pdf', 'a/../../b.pdf', '/etc/passwd', 'a b.pdf', 'a.txt']) {
        await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/not a result key/);
      }
    });
  });
}

describe('result store: files on disk', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-results-modes-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a PDF is the owner's alone (0600, in a 0700 directory made for the account), and a put leaves no temporary file, also when it fails", async () => {
    const store = new FileResultStore(dir);
    await store.put('acc_modes/job_1.pdf', Buffer.from('%PDF-1.4 one'));
    await store.put('acc_modes/job_2.pdf', Buffer.from('%PDF-1.4 two'));
    expect(fs.statSync(path.join(dir, 'acc_modes')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, 'acc_modes/job_1.pdf')).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(path.join(dir, 'acc_modes/job_2.pdf'), 'utf8')).toBe('%PDF-1.4 two');
    // A name the rename cannot take (a directory holds it): the put fails, and its bytes are not left behind.
    fs.mkdirSync(path.join(dir, 'acc_modes/job_3.pdf'));
    await expect(store.put('acc_modes/job_3.pdf', Buffer.from('%PDF-1.4 three'))).rejects.toThrow();
    expect(fs.readdirSync(path.join(dir, 'acc_modes')).sort()).toEqual(['job_1.pdf', 'job_2.pdf', 'job_3.pdf']);
  });
});

describe('openResultStore', () => {
  it('keeps files under the data dir unless RESULT_STORE names a bucket', () => {
    const files = openResultStore(loadConfig({ PAGEWORKS_DATA_DIR: '/tmp/pw-x' }));
    expect(files.kind).toBe('files');
    const s3 = openResultStore(loadConfig({ RESULT_STORE: 's3://my-bucket/pdfs', S3_ENDPOINT: 'http://127.0.0.1:9000' }), {});
    expect(s3.kind).toBe('s3');
    expect(() => loadConfig({ RESULT_STORE: 'file:///tmp' })).toThrow(/^RESULT_STORE: /);
  });
});
