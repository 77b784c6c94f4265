import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { html, type Origin, startOrigin } from './origin.js';

const PAGE = `<!doctype html><html><head><meta charset="utf-8">
<title>  Launch   day </title>
<meta name="description" content="All about the launch">
<meta property="og:title" content="Launch (OG)"><meta property="og:description" content="OG description">
<meta property="og:image" content="/img/cover.png"><meta property="og:url" content="/launch">
<link rel="canonical" href="https://canonical.example/launch"><link rel="shortcut icon" href="/fav.ico">
</head><body><p>Hello</p></body></html>`;

describe('GET /v1/fetch', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let origin: Origin;
  let key: string;
  let renderKey: string;

  beforeAll(async () => {
    core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', METADATA_CACHE_TTL_S: '0' });
    app = await buildMetadataApp(core);
    ({ key } = await createKey(core, 'metadata'));
    ({ key: renderKey } = await createKey(core, 'render'));
    origin = await startOrigin((req, res) => {
      if (req.url === '/page') return html(PAGE)(req, res);
      if (req.url === '/moved') {
        res.writeHead(301, { location: '/page' });
        return res.end();
      }
      if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'text/html' });
        return res.end('<title>Not found</title>');
      }
      if (req.url === '/error') {
        res.writeHead(503, { 'content-type': 'text/plain' });
        return res.end('down');
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<p>no metadata here</p>');
    });
  });
  afterAll(async () => {
    await app?.close();
    await origin?.close();
    if (core) await closeTestCore(core);
  });

  const get = (url: string | undefined, headers: Record<string, string> = { 'x-api-key': key }) =>
    app.inject({ method: 'GET', url: url === undefined ? '/v1/fetch' : `/v1/fetch?url=${encodeURIComponent(url)}`, headers });

  /** PAGE's eight fields, its addresses resolved against the origin. */
  const launchFields = () => ({
    title: 'Launch day',
    description: 'All about the launch',
    og_title: 'Launch (OG)',
    og_description: 'OG description',
    og_image: `${origin.base}/img/cover.png`,
    og_url: `${origin.base}/launch`,
    canonical_url: 'https://canonical.example/launch',
    favicon_url: `${origin.base}/fav.ico`,
  });

  it('answers all eight fields with a request id', async () => {
    const res = await get(`${origin.base}/page`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual(launchFields());
  });

  it('sends a polite User-Agent, Accept and Accept-Language', async () => {
    await get(`${origin.base}/page`);
    const h = origin.headers[origin.headers.length - 1];
    expect(h['user-agent']).toBe(core.config.metadataUserAgent);
    expect(h.accept).toMatch(/^text\/html/);
    expect(h['accept-language']).toMatch(/^en/);
  });

  it('resolves relative URLs against the final URL after redirects', async () => {
    const res = await get(`${origin.base}/moved`);
    expect(res.statusCode).toBe(200);
    expect(res.json().og_url).toBe(`${origin.base}/launch`);
  });

  it('a user name and password in the url are not sent, and no address in the answer carries them', async () => {
    const res = await get(`${origin.base.replace('http://', 'http://user:s3cret@')}/page`);
    expect(res.statusCode, res.body).toBe(200);
    expect(origin.headers[origin.headers.length - 1].authorization).toBeUndefined();
    expect(res.json()).toEqual(launchFields());
  });

  it('a page without metadata gives nulls and the origin favicon', async () => {
    const res = await get(`${origin.base}/plain`);
    expect(res.json()).toEqual({
      title: null,
      description: null,
      og_title: null,
      og_description: null,
      og_image: null,
      og_url: null,
      canonical_url: null,
      favicon_url: `${origin.base}/favicon.ico`,
    });
  });

  it.each([
    [undefined, 'url: required (the address of the page, http:// or https://)'],
    ['', 'url: required (the address of the page, http:// or https://)'],
    ['ftp://example.com/file', 'url: scheme "ftp" is not allowed (only http:// and https://)'],
    ['javascript:alert(1)', 'url: scheme "javascript" is not allowed (only http:// and https://)'],
    ['example.com', 'url: must begin with http:// or https://'],
    ['http:/example.com/', 'url: must begin with http:// or https://'],
    ['HTTPS:example.com', 'url: must begin with http:// or https://'],
    ['localhost:8080/page', 'url: must begin with http:// or https://'],
    ['example.com:443', 'url: must begin with http:// or https://'],
    ['http://exa mple.com/', 'url: malformed'],
  ])('400 for url %j', async (url, detail) => {
    const res = await get(url);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail });
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('400 for a url longer than 2048 characters', async () => {
    const res = await get(`https://example.com/${'a'.repeat(2030)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'url: longer than 2048 characters (2050)' });
  });

  it('400 for a repeated url parameter', async () => {
    const res = await app.inject({
      url: `/v1/fetch?url=${encodeURIComponent(`${origin.base}/page`)}&url=x`,
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'url: give exactly one url parameter' });
  });

  it('a url of exactly 2048 characters is accepted', async () => {
    const url = `${origin.base}/page?pad=`;
    const res = await get(url + 'x'.repeat(2048 - url.length));
    expect(res.statusCode).toBe(200);
  });

  it.each([
    ['no key', {}, 'missing API key: send the X-API-Key header'],
    ['a made-up key', { 'x-api-key': 'pwm_live_00000000000000000000000000000000' }, 'malformed API key'],
    ['garbage', { 'x-api-key': 'hello' }, 'malformed API key'],
  ])('401 for %s', async (_name, headers, detail) => {
    const res = await get(`${origin.base}/page`, headers as Record<string, string>);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail });
  });

  it('401 for a render key', async () => {
    const res = await get(`${origin.base}/page`, { 'x-api-key': renderKey });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toMatch(/^not a metadata key/);
  });

  it('502 with the upstream status in detail', async () => {
    let res = await get(`${origin.base}/missing`);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ detail: 'target answered HTTP 404' });
    res = await get(`${origin.base}/error`);
    expect(res.json()).toEqual({ detail: 'target answered HTTP 503' });
  });

  it('502 when nothing listens on the target port', async () => {
    const dead = await startOrigin(html(''));
    await dead.close();
    const res = await get(`${dead.base}/`);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ detail: 'target refused the connection' });
  });

  it('health needs no key', async () => {
    const res = await app.inject({ url: '/v1/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'healthy', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
  });

  it('unknown routes and methods answer in the detail shape', async () => {
    let res = await app.inject({ url: '/v2/fetch' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'not found: GET /v2/fetch' });
    expect(res.headers['x-request-id']).toBeDefined();
    res = await app.inject({ method: 'POST', url: '/v1/fetch' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json().detail).toMatch(/^POST is not allowed on \/v1\/fetch/);
  });

  it('serves an OpenAPI document and a docs page', async () => {
    const spec = await app.inject({ url: '/openapi.json' });
    expect(spec.statusCode).toBe(200);
    const doc = spec.json();
    expect(doc.paths['/v1/fetch'].get.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'url', in: 'query', required: true })]),
    );
    expect(Object.keys(doc.paths['/v1/fetch'].get.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '429',
      '500',
      '502',
      '503',
      '504',
    ]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.paths['/v1/health'].get.responses['200']).toBeDefined();
    const docs = await app.inject({ url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger-ui');
  });
});
