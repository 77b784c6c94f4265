import { describe, expect, it } from 'vitest';
import { jobSlots, loadConfig, parseServices } from '../../src/config.js';

describe('render job configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({ RENDER_CONCURRENCY: '3' });
    expect(c).toMatchObject({
      renderJobAttempts: 3,
      renderJobsMaxQueued: 10_000,
      renderJobsMaxQueuedMb: 1024,
      renderJobRetentionH: 24,
      resultStore: undefined,
      s3Endpoint: undefined,
      renderJobLeaseMs: 30_000,
      renderWorkerConcurrency: undefined,
      services: ['dashboard', 'render', 'metadata'],
    });
  });

  it('gives jobs one slot fewer than the concurrency on render (interactive first), every slot on render-worker', () => {
    expect(jobSlots(loadConfig({ RENDER_CONCURRENCY: '3' }), 'render')).toBe(2);
    expect(jobSlots(loadConfig({ RENDER_CONCURRENCY: '2' }), 'render')).toBe(1);
    expect(jobSlots(loadConfig({ RENDER_CONCURRENCY: '1' }), 'render')).toBe(1);
    expect(jobSlots(loadConfig({ RENDER_CONCURRENCY: '3' }), 'render-worker')).toBe(3);
    expect(jobSlots(loadConfig({ RENDER_CONCURRENCY: '3', RENDER_WORKER_CONCURRENCY: '5' }), 'render')).toBe(5);
    // The API alone: render serves /v1/render and /v1/jobs and claims nothing.
    expect(jobSlots(loadConfig({ RENDER_WORKER_CONCURRENCY: '0' }), 'render')).toBe(0);
    expect(() => loadConfig({ RENDER_WORKER_CONCURRENCY: '0', PAGEWORKS_SERVICES: 'render-worker' })).toThrow(
      /^RENDER_WORKER_CONCURRENCY: 0 on render-worker would work no job/,
    );
  });

  it('reads every variable', () => {
    const c = loadConfig({
      RENDER_JOB_ATTEMPTS: '5',
      RENDER_JOBS_MAX_QUEUED: '50',
      RENDER_JOBS_MAX_QUEUED_MB: '20',
      RENDER_JOB_RETENTION_H: '72',
      RESULT_STORE: 's3://pdf-bucket/jobs/v1',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      RENDER_JOB_LEASE_MS: '10000',
      RENDER_WORKER_CONCURRENCY: '4',
      PAGEWORKS_SERVICES: 'render-worker',
    });
    expect(c).toMatchObject({
      renderJobAttempts: 5,
      renderJobsMaxQueued: 50,
      renderJobsMaxQueuedMb: 20,
      renderJobRetentionH: 72,
      resultStore: 's3://pdf-bucket/jobs/v1',
      s3Endpoint: 'http://127.0.0.1:9000',
      renderJobLeaseMs: 10_000,
      renderWorkerConcurrency: 4,
      services: ['render-worker'],
    });
  });

  it.each([
    ['RENDER_JOB_ATTEMPTS', '0'],
    ['RENDER_JOBS_MAX_QUEUED', 'many'],
    ['RENDER_JOBS_MAX_QUEUED_MB', '0'],
    ['RENDER_JOB_RETENTION_H', '0'],
    ['RESULT_STORE', '/var/pdfs'],
    ['RESULT_STORE', 's3://'],
    ['S3_ENDPOINT', 'ftp://minio:9000'],
    ['RENDER_JOB_LEASE_MS', '10'],
    ['RENDER_WORKER_CONCURRENCY', '-1'],
    ['RENDER_WORKER_CONCURRENCY', '257'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}: `));
  });

  it('refuses render and render-worker in one process (one RENDER_PORT)', () => {
    expect(() => parseServices('render,render-worker', '--services')).toThrow(/^--services: render and render-worker/);
    expect(() => loadConfig({ PAGEWORKS_SERVICES: 'render-worker,render' })).toThrow(/^PAGEWORKS_SERVICES: /);
    expect(parseServices('render-worker,metadata')).toEqual(['render-worker', 'metadata']);
  });
});
