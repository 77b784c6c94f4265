import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** Calls a job route with a render key; `body` is sent as JSON unless it is a string. */
export function jobRequest(
  app: FastifyInstance,
  key: string,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

/** `POST /v1/jobs`. */
export function submitJob(app: FastifyInstance, key: string, body: unknown, headers: Record<string, string> = {}) {
  return jobRequest(app, key, 'POST', '/v1/jobs', body, headers);
}

/** Polls `GET /v1/jobs/{id}` until the job is final (or `timeoutMs` passes); returns the job object. */
export async function waitForJob(app: FastifyInstance, key: string, id: string, timeoutMs = 90_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await jobRequest(app, key, 'GET', `/v1/jobs/${id}`);
    expect(res.statusCode).toBe(200);
    const job = res.json();
    if (['succeeded', 'failed', 'canceled'].includes(job.status)) return job;
    if (Date.now() > until) throw new Error(`job ${id} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Asserts the render error shape with its status and code (and message, when given). */
export function expectJobError(res: LightMyRequestResponse, status: number, code: string, message?: string | RegExp): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  if (typeof message === 'string') expect(body.error.message).toBe(message);
  else if (message) expect(body.error.message).toMatch(message);
}
