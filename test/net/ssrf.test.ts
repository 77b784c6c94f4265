import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import type { LookupFn } from '../../src/net/policy.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { html, type Origin, startOrigin } from '../metadata/origin.js';

/** Names never go to real DNS in tests; private answers are only ever checked, never connected to. */
function stubLookup(table: Record<string, string[] | (() => string[])>): LookupFn {
  return async (host) => {
    const entry = table[host];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const answers = typeof entry === 'function' ? entry() : entry;
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function fetchVia(app: FastifyInstance, key: string, url: string) {
  return app.inject({ url: `/v1/fetch?url=${encodeURIComponent(url)}`, headers: { 'x-api-key': key } });
}

describe('SSRF: EGRESS_ALLOW unset', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let key: string;
  let loopback: Origin;

  beforeAll(async () => {
    core = await createTestCore({ METADATA_CACHE_TTL_S: '0' });
    app = await buildMetadataApp(core, {
      lookup: stubLookup({
        'intranet.example': ['10.1.2.3'],
        'cloud-metadata.example': ['169.254.169.254'],
        'mixed.example': ['93.184.215.14', '192.168.1.20'],
        'v6-ula.example': ['fd00::1'],
        'nat64.example': ['64:ff9b::a00:1'],
      }),
    });
    ({ key } = await createKey(core, 'metadata'));
    loopback = await startOrigin(html('<title>internal secret</title>'));
  });
  afterAll(async () => {
    await app?.close();
    await loopback?.close();
    if (core) await closeTestCore(core);
  });

  const spellings = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://017700000001:${port}/`,
    `http://127.1:${port}/`,
    `http://127.0.0.1.:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[::1]:${port}/`,
    `http://localhost:${port}/`,
    `http://localhost.:${port}/`,
    `http://LocalHost:${port}/`,
    `http://api.localhost:${port}/`,
    `http://0:${port}/`,
    `http://0.0.0.0:${port}/`,
    `https://127.0.0.1:${port}/`,
  ];

  it('every spelling of a loopback address is refused with 400 and the server sees nothing', async () => {
    for (const url of spellings(loopback.port)) {
      const res = await fetchVia(app, key, url);
      expect({ url, status: res.statusCode }).toEqual({ url, status: 400 });
      expect(res.json().detail).toMatch(
        /^url not allowed: (address \S+|host \S+) is (loopback|unspecified) \(EGRESS_ALLOW lets an operator allow it\)$/,
      );
    }
    expect(loopback.requests).toEqual([]);
  });

  it.each([
    ['http://10.0.0.1/', 'url not allowed: address 10.0.0.1 is private (EGRESS_ALLOW lets an operator allow it)'],
    [
      'http://169.254.169.254/latest/meta-data/',
      'url not allowed: address 169.254.169.254 is link-local (EGRESS_ALLOW lets an operator allow it)',
    ],
    ['http://100.64.1.1/', 'url not allowed: address 100.64.1.1 is carrier-grade NAT (EGRESS_ALLOW lets an operator allow it)'],
    ['http://[fe80::1]/', 'url not allowed: address fe80::1 is link-local (EGRESS_ALLOW lets an operator allow it)'],
    [
      'http://intranet.example/',
      'url not allowed: host intranet.example resolves to a private address (EGRESS_ALLOW lets an operator allow it)',
    ],
    [
      'http://cloud-metadata.example/',
      'url not allowed: host cloud-metadata.example resolves to a link-local address (EGRESS_ALLOW lets an operator allow it)',
    ],
    [
      'http://mixed.example/',
      'url not allowed: host mixed.example resolves to a private address (EGRESS_ALLOW lets an operator allow it)',
    ],
    [
      'http://v6-ula.example/',
      'url not allowed: host v6-ula.example resolves to a unique-local address (EGRESS_ALLOW lets an operator allow it)',
    ],
    [
      'http://nat64.example/',
      'url not allowed: host nat64.example resolves to a private address (EGRESS_ALLOW lets an operator allow it)',
    ],
  ])('%s is refused before any connection', async (url, detail) => {
    const res = await fetchVia(app, key, url);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail });
  });

  it('an unknown host is a 502, not a 400', async () => {
    const res = await fetchVia(app, key, 'http://no-such-host.example/');
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ detail: 'target host could not be resolved' });
  });
});

describe('SSRF: redirects and rebinding with EGRESS_ALLOW=127.0.0.2/32', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let key: string;
  let allowed: Origin;
  let forbidden: Origin;
  let rebindCalls = 0;

  beforeAll(async () => {
    forbidden = await startOrigin(html('<title>internal secret</title>'), '127.0.0.1');
    allowed = await startOrigin((req, res) => {
      if (req.url === '/to-forbidden') res.writeHead(302, { location: `http://127.0.0.1:${forbidden.port}/secret` });
      else if (req.url === '/to-localhost') res.writeHead(301, { location: `http://localhost:${forbidden.port}/secret` });
      else if (req.url === '/to-decimal') res.writeHead(307, { location: `http://2130706433:${forbidden.port}/secret` });
      else if (req.url === '/to-file') res.writeHead(302, { location: 'file:///etc/passwd' });
      else if (req.url === '/to-self') res.writeHead(302, { location: '/page' });
      else {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(`<title>public page ${req.headers.host}</title>`);
      }
      res.end();
    }, '127.0.0.2');
    core = await createTestCore({ EGRESS_ALLOW: '127.0.0.2/32', METADATA_CACHE_TTL_S: '0' });
    app = await buildMetadataApp(core, {
      lookup: stubLookup({
        // First answer is the allowed address; every later lookup would "rebind" to the forbidden one.
        'rebind.example': () => (rebindCalls++ === 0 ? ['127.0.0.2'] : ['127.0.0.1']),
      }),
    });
    ({ key } = await createKey(core, 'metadata'));
  });
  afterAll(async () => {
    await app?.close();
    await allowed?.close();
    await forbidden?.close();
    if (core) await closeTestCore(core);
  });

  it('the allowed loopback origin is reachable', async () => {
    const res = await fetchVia(app, key, `http://127.0.0.2:${allowed.port}/to-self`);
    expect(res.statusCode).toBe(200);
    expect(res.json().title).toBe(`public page 127.0.0.2:${allowed.port}`);
  });

  it.each([
    [
      '/to-forbidden',
      'url not allowed: it redirects to http://127.0.0.1:PORT/secret: address 127.0.0.1 is loopback (EGRESS_ALLOW lets an operator allow it)',
    ],
    [
      '/to-localhost',
      'url not allowed: it redirects to http://localhost:PORT/secret: host localhost is loopback (EGRESS_ALLOW lets an operator allow it)',
    ],
    [
      '/to-decimal',
      'url not allowed: it redirects to http://127.0.0.1:PORT/secret: address 127.0.0.1 is loopback (EGRESS_ALLOW lets an operator allow it)',
    ],
    ['/to-file', 'url not allowed: it redirects to file:///etc/passwd: scheme "file" is not allowed (only http and https)'],
  ])(
    'a redirect %s to a forbidden target is refused, saying where it led, and the target sees no request',
    async (path, detail) => {
      const res = await fetchVia(app, key, `http://127.0.0.2:${allowed.port}${path}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: detail.replace('PORT', String(forbidden.port)) });
      expect(forbidden.requests).toEqual([]);
    },
  );

  it('DNS is resolved once and the connection pinned: a rebinding answer is never used', async () => {
    const res = await fetchVia(app, key, `http://rebind.example:${allowed.port}/page`);
    expect(res.statusCode).toBe(200);
    expect(res.json().title).toBe(`public page rebind.example:${allowed.port}`);
    expect(rebindCalls).toBe(1);
    expect(forbidden.requests).toEqual([]);
  });
});
