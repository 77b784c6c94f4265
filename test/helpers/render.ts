import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** `POST /v1/render` with a render key; `body` is sent as is when it is a string (malformed JSON tests), else as JSON. */
export function postRender(
  app: FastifyInstance,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/v1/render',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The egress policy's resolver in tests: tests never ask real DNS, so any name lookup fails. */
export async function noDns(): Promise<never> {
  throw new Error('tests never resolve names');
}
