/**
 * Every route's statuses are documented where a client reads them, and the same in both places: the
 * OpenAPI document each service serves at /openapi.json and docs/api.md's "Statuses by route". Both
 * are checked against what the routes answer when driven here: a normal request, no key, a body that is
 * not JSON (every route that takes a body), the store gone (503) and a drain (503 on every route, from
 * the service's onRequest hook). The headers a client acts on (the request id, the rate-limit fields,
 * Retry-After, WWW-Authenticate) are declared on each response that carried them.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { halfSentRequest } from '../helpers/raw-http.js';
import { noDns } from '../helpers/render.js';
import { plain, tableUnder } from './markdown.js';

const DOC = 'docs/api.md';
const HEADING = 'Statuses by route';
type Service = 'render' | 'metadata';

interface Operation {
  responses: Record<string, { headers?: Record<string, unknown> }>;
  security?: unknown[];
}

/** `GET /v1/jobs/{id}` → its statuses, per service, from the served OpenAPI document. */
type Statuses = Map<string, Set<number>>;
/** `GET /v1/jobs/{id} 429` → the names of the headers (lower case) a response has, declared or answered. */
type Headers = Map<string, Set<string>>;

/** The answer's headers a client acts on, which the OpenAPI document must declare where they are sent. */
const WATCHED = ['x-render-id', 'x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate'];

let core: CoreDeps;
let downCore: CoreDeps | undefined;
const apps = {} as Record<Service, FastifyInstance>;
const keys = {} as Record<Service, string>;
const openapi = {} as Record<Service, Statuses>;
const secured = {} as Record<Service, Set<string>>;
const observed = { render: new Map(), metadata: new Map() } as Record<Service, Statuses>;
const declaredHeaders = { render: new Map(), metadata: new Map() } as Record<Service, Headers>;
const answeredHeaders = { render: new Map(), metadata: new Map() } as Record<Service, Headers>;
let jobId = '';

const note = (service: Service, route: string, status: number, headers: Record<string, unknown> = {}) => {
  const seen = observed[service].get(route) ?? new Set<number>();
  seen.add(status);
  observed[service].set(route, seen);
  const answered = answeredHeaders[service].get(`${route} ${status}`) ?? new Set<string>();
  for (const name of Object.keys(headers)) if (WATCHED.includes(name.toLowerCase())) answered.add(name.toLowerCase());
  answeredHeaders[service].set(`${route} ${status}`, answered);
};

/** The request that exercises a route normally: its path with the job's id, and a body where it takes one. */
function sample(route: string): { method: string; url: string; payload?: object } {
  const [method, path] = route.split(' ');
  const url = path.replace('{id}', jobId);
  if (route === 'POST /v1/render') return { method, url, payload: { html: '<p>statuses</p>' } };
  if (route === 'POST /v1/jobs') return { method, url, payload: { html: '<p>statuses</p>' } };
  return { method, url };
}

const authHeader = (service: Service, key: string) =>
  service === 'render' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };

async function probe(service: Service, route: string, withKey: boolean): Promise<number> {
  const { method, url, payload } = sample(route);
  const res = await apps[service].inject({
    method: method as 'GET',
    url,
    headers: {
      ...(withKey ? authHeader(service, keys[service]) : {}),
      ...(payload ? { 'content-type': 'application/json' } : {}),
    },
    ...(payload ? { payload: JSON.stringify(payload) } : {}),
  });
  note(service, route, res.statusCode, res.headers);
  return res.statusCode;
}

/** A route that takes a body (POST) sent one of another media type, with a key: what it answers to that. */
async function probeMediaType(service: Service, route: string): Promise<void> {
  const { method, url } = sample(route);
  if (method !== 'POST') return;
  const res = await apps[service].inject({
    method: 'POST',
    url,
    headers: { ...authHeader(service, keys[service]), 'content-type': 'text/plain' },
    payload: 'html=<p>statuses</p>',
  });
  note(service, route, res.statusCode);
}

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' });
  apps.render = await buildRenderApp(core, { lookup: noDns });
  apps.metadata = await buildMetadataApp(core, { lookup: noDns });
  for (const service of ['render', 'metadata'] as const) {
    keys[service] = (await createKey(core, service)).key;
    const doc = (await apps[service].inject('/openapi.json')).json() as { paths: Record<string, Record<string, Operation>> };
    openapi[service] = new Map();
    secured[service] = new Set();
    for (const [path, operations] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(operations)) {
        const route = `${method.toUpperCase()} ${path}`;
        openapi[service].set(route, new Set(Object.keys(op.responses).map(Number)));
        for (const [status, response] of Object.entries(op.responses))
          declaredHeaders[service].set(
            `${route} ${status}`,
            new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase())),
          );
        if ((op.security ?? []).length > 0) secured[service].add(route);
      }
  }

  // A job to read, download and cancel, then each route as a client normally calls it.
  const submitted = await apps.render.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: { ...authHeader('render', keys.render), 'content-type': 'application/json' },
    payload: JSON.stringify({ html: '<p>job</p>' }),
  });
  jobId = submitted.json().id;
  note('render', 'POST /v1/jobs', submitted.statusCode, submitted.headers);
  for (const service of ['render', 'metadata'] as const)
    for (const route of [...openapi[service].keys()].sort(
      (a, b) => Number(a.startsWith('DELETE')) - Number(b.startsWith('DELETE')),
    )) {
      await probe(service, route, true);
      if (secured[service].has(route)) await probe(service, route, false);
      await probeMediaType(service, route);
    }
  const unknown = await apps.render.inject({
    url: '/v1/jobs/job_00000000000000000000000000000000',
    headers: authHeader('render', keys.render),
  });
  note('render', 'GET /v1/jobs/{id}', unknown.statusCode, unknown.headers);

  // A drain: a request that reaches a closing service gets its 503 on any route.
  for (const service of ['render', 'metadata'] as const) {
    await apps[service].listen({ host: '127.0.0.1', port: 0 });
    const port = (apps[service].server.address() as AddressInfo).port;
    // Opened and finished one after another: a half-sent request per route, each held across the close.
    const late = [];
    for (const route of openapi[service].keys()) {
      const { method, url } = sample(route);
      late.push({ route, request: await halfSentRequest(port, url, method) });
    }
    const closed = apps[service].close().catch(() => {});
    await new Promise((r) => setTimeout(r, 100));
    for (const { route, request } of late) {
      const answer = await request.finish();
      note(service, route, answer.status, answer.headers);
    }
    await closed;
  }

  // The store gone (apps of their own: closing a store under a draining app would cut the drain short):
  // every authenticated route answers 503 (SERVICE_UNAVAILABLE / {"detail"}).
  downCore = await createTestCore({ RENDER_CONCURRENCY: '1' });
  apps.render = await buildRenderApp(downCore, { lookup: noDns });
  apps.metadata = await buildMetadataApp(downCore, { lookup: noDns });
  for (const service of ['render', 'metadata'] as const) keys[service] = (await createKey(downCore, service)).key;
  await downCore.store.close();
  for (const service of ['render', 'metadata'] as const) for (const route of secured[service]) await probe(service, route, true);
}, 120_000);

afterAll(async () => {
  for (const app of Object.values(apps)) await app?.close().catch(() => {});
  if (core) await closeTestCore(core);
  // That store was closed on purpose above; closing it again is not this suite's concern.
  if (downCore) await closeTestCore(downCore).catch(() => {});
});

/** docs/api.md's table: `service | route | statuses`. */
function documented(): Record<Service, Statuses> {
  const [header, ...rows] = tableUnder(DOC, HEADING);
  expect(header.map((c) => c.toLowerCase())).toEqual(['service', 'route', 'statuses']);
  const out = { render: new Map(), metadata: new Map() } as Record<Service, Statuses>;
  for (const [service, route, statuses] of rows) {
    const s = plain(service) as Service;
    if (!(s in out)) throw new Error(`${DOC} "${HEADING}": unknown service ${service}`);
    out[s].set(plain(route), new Set(plain(statuses).split(/,\s*/).map(Number)));
  }
  return out;
}

const list = (set: Set<number> | undefined) => [...(set ?? [])].sort((a, b) => a - b);

describe.each(['render', 'metadata'] as const)('%s service: statuses by route', (service) => {
  it('every status a route answered is in its OpenAPI responses', () => {
    const missing = [...observed[service]].flatMap(([route, seen]) =>
      list(seen)
        .filter((status) => !openapi[service].get(route)?.has(status))
        .map((status) => `${route} answered ${status}`),
    );
    expect(missing, `statuses the ${service} service answered that its /openapi.json does not list`).toEqual([]);
  });

  it('every header a client acts on that a route answered is declared on that response in its OpenAPI document', () => {
    const undeclared = [...answeredHeaders[service]].flatMap(([response, names]) =>
      [...names].filter((name) => !declaredHeaders[service].get(response)?.has(name)).map((name) => `${response}: ${name}`),
    );
    expect(undeclared, `headers the ${service} service answered that its /openapi.json does not declare`).toEqual([]);
  });

  it('a 429 declares Retry-After, the rate-limit fields and the request id, and a 503 Retry-After', () => {
    // This suite does not drive a route past its limit: what api.md promises a 429 carries is checked here.
    const requestId = service === 'render' ? 'x-render-id' : 'x-request-id';
    const missing = [...declaredHeaders[service]].flatMap(([response, names]) => {
      const status = response.split(' ').at(-1);
      const wanted =
        status === '429' ? ['retry-after', 'ratelimit', 'ratelimit-policy', requestId] : status === '503' ? ['retry-after'] : [];
      return wanted.filter((name) => !names.has(name)).map((name) => `${response}: ${name}`);
    });
    expect(missing).toEqual([]);
  });

  it(`${DOC} "${HEADING}" lists the same routes and statuses as /openapi.json`, () => {
    const doc = documented()[service];
    const differences = [
      ...[...openapi[service]].flatMap(([route, statuses]) => {
        if (!doc.has(route)) return [`${route}: in /openapi.json, no row in ${DOC}`];
        const a = list(statuses).join(', ');
        const b = list(doc.get(route)).join(', ');
        return a === b ? [] : [`${route}: /openapi.json ${a}; ${DOC} ${b}`];
      }),
      ...[...doc.keys()]
        .filter((route) => !openapi[service].has(route))
        .map((route) => `${route}: in ${DOC}, not in /openapi.json`),
    ];
    expect(differences, `${service}: routes whose documented statuses differ`).toEqual([]);
  });

  it('was driven through every route (a normal call, no key, a body not JSON, store gone, drain)', () => {
    for (const route of openapi[service].keys()) expect(list(observed[service].get(route)), route).toContain(503);
    for (const route of secured[service]) expect(list(observed[service].get(route)), route).toContain(401);
    for (const route of [...openapi[service].keys()].filter((r) => r.startsWith('POST ')))
      expect(list(observed[service].get(route)), route).toContain(415);
  });
});
