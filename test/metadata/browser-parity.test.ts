/**
 * What a browser reads from an answer, the service reads too: answers written byte by byte (a raw origin for
 * what http.ServerResponse will not send) and fetched through GET /v1/fetch. Each expectation is what headless
 * Chromium shows for the same answer.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { html, type Origin, type RawOrigin, startOrigin, startRawOrigin } from './origin.js';

/** Text (UTF-8) and raw byte pieces given as `hex:` strings, joined. */
function bytes(...parts: string[]): Buffer {
  return Buffer.concat(
    parts.map((p) => (p.startsWith('hex:') ? Buffer.from(p.slice(4).replace(/ /g, ''), 'hex') : Buffer.from(p))),
  );
}

/** "łódź" in ISO-8859-2. */
const LODZ_8859_2 = 'hex:B3 F3 64 BC';

/** An HTTP/1.1 200 answer with these header lines (raw bytes, as written) and body. */
function answer200(headerLines: Array<string | Buffer>, body: string | Buffer): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const lines = [...headerLines, `Content-Length: ${b.length}`].map((l) => Buffer.concat([Buffer.from(l), Buffer.from('\r\n')]));
  return Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\n'), ...lines, Buffer.from('\r\n'), b]);
}

/** The fields of a page that gives only a title; the favicon is the origin's default. */
const titleOnly = (base: string, title: string | null) => ({
  title,
  description: null,
  og_title: null,
  og_description: null,
  og_image: null,
  og_url: null,
  canonical_url: null,
  favicon_url: `${base}/favicon.ico`,
});

describe('GET /v1/fetch reads answers as a browser does', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let key: string;
  const logs: Array<Record<string, unknown>> = [];
  let origin: Origin;
  let raw: RawOrigin;
  /** Pages served by `origin`: path → [Content-Type, body]. */
  const pages = new Map<string, [string, Buffer]>();
  /** Answers of `raw`: target → the parts written. */
  const answers = new Map<string, Array<string | Buffer>>();

  beforeAll(async () => {
    core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', METADATA_CACHE_TTL_S: '0' }, logs);
    app = await buildMetadataApp(core);
    ({ key } = await createKey(core, 'metadata'));
    origin = await startOrigin((req, res) => {
      const page = pages.get(req.url ?? '');
      if (!page) {
        res.writeHead(404);
        return res.end();
      }
      html(page[1], page[0])(req, res);
    });
    raw = await startRawOrigin((target) => answers.get(target) ?? ['HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'], 20);
  });
  afterAll(async () => {
    await app?.close();
    await origin?.close();
    await raw?.close();
    if (core) await closeTestCore(core);
  });

  const get = (url: string) => app.inject({ url: `/v1/fetch?url=${encodeURIComponent(url)}`, headers: { 'x-api-key': key } });
  /** Serves `body` as `contentType` at `path` on `origin` and fetches it through the service. */
  const serve = (path: string, contentType: string, body: Buffer) => {
    pages.set(path, [contentType, body]);
    return get(origin.base + path);
  };

  describe('encoding from an XML declaration', () => {
    it('text/html without a charset: the declaration names the encoding (double or single quotes)', async () => {
      const latin2 = await serve(
        '/xml-latin2',
        'text/html',
        bytes('<?xml version="1.0" encoding="iso-8859-2"?><title>', LODZ_8859_2, '</title>'),
      );
      expect(latin2.statusCode).toBe(200);
      expect(latin2.json()).toEqual(titleOnly(origin.base, 'łódź'));
      const utf8 = await serve('/xml-utf8', 'text/html', bytes("<?xml version='1.0' encoding='utf-8'?><title>Café</title>"));
      expect(utf8.json()).toEqual(titleOnly(origin.base, 'Café'));
      // UTF-16 named from inside a document read as bytes is UTF-8, as for a meta charset.
      const utf16 = await serve('/xml-utf16', 'text/html', bytes('<?xml version="1.0" encoding="utf-16"?><title>Café</title>'));
      expect(utf16.json().title).toBe('Café');
    });

    it('BOM, then the Content-Type charset, then a meta charset come first; the declaration counts only at the first byte', async () => {
      const meta = await serve(
        '/xml-meta',
        'text/html',
        bytes('<?xml version="1.0" encoding="utf-8"?><meta charset="iso-8859-2"><title>', LODZ_8859_2, '</title>'),
      );
      expect(meta.json().title).toBe('łódź');
      const header = await serve(
        '/xml-header',
        'text/html; charset=windows-1252',
        bytes('<?xml version="1.0" encoding="utf-8"?><title>Café</title>'),
      );
      expect(header.json().title).toBe('CafÃ©');
      const bom = await serve(
        '/xml-bom',
        'text/html',
        bytes('hex:EF BB BF', '<?xml version="1.0" encoding="iso-8859-2"?><title>Café</title>'),
      );
      expect(bom.json().title).toBe('Café');
      const late = await serve('/xml-late', 'text/html', bytes(' <?xml version="1.0" encoding="utf-8"?><title>Café</title>'));
      expect(late.json().title).toBe('CafÃ©');
    });

    it('a declaration naming an encoding that is not ASCII-compatible: ISO-2022-JP is read as such', async () => {
      const res = await serve(
        '/xml-2022',
        'text/html',
        bytes("<?xml version='1.0' encoding='iso-2022-jp'?><title>", 'hex:1B 24 42 46 7C 4B 5C 1B 28 42', '</title>'),
      );
      expect(res.json()).toEqual(titleOnly(origin.base, '日本'));
    });

    it('application/xhtml+xml is UTF-8 without a declaration (a meta charset does not count), else what it declares', async () => {
      const page = (head: string) =>
        bytes(`<html xmlns="http://www.w3.org/1999/xhtml"><head>${head}<title>Café</title></head><body/></html>`);
      const plain = await serve('/xhtml', 'application/xhtml+xml', page(''));
      expect(plain.json()).toEqual(titleOnly(origin.base, 'Café'));
      const meta = await serve('/xhtml-meta', 'application/xhtml+xml', page('<meta charset="iso-8859-2"/>'));
      expect(meta.json().title).toBe('Café');
      const declared = await serve(
        '/xhtml-declared',
        'application/xhtml+xml',
        bytes(
          '<?xml version="1.0" encoding="iso-8859-2"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>',
          LODZ_8859_2,
          '</title></head></html>',
        ),
      );
      expect(declared.json().title).toBe('łódź');
    });
  });

  it('a Location in raw UTF-8 is read as UTF-8: the next request is percent-encoded once', async () => {
    answers.set('/go', [
      Buffer.concat([
        Buffer.from('HTTP/1.1 302 Found\r\nLocation: '),
        Buffer.from('/echo/café?q=ü'),
        Buffer.from('\r\nContent-Length: 0\r\n\r\n'),
      ]),
    ]);
    answers.set('/echo/caf%C3%A9?q=%C3%BC', [
      answer200(['Content-Type: text/html'], '<title>Echo</title><link rel="canonical" href="#c">'),
    ]);
    const res = await get(`${raw.base}/go`);
    expect(raw.targets).toContain('/echo/caf%C3%A9?q=%C3%BC');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...titleOnly(raw.base, 'Echo'), canonical_url: `${raw.base}/echo/caf%C3%A9?q=%C3%BC#c` });
  });

  describe('large response headers', () => {
    it('headers of 200 KiB are read, as Chromium reads up to 256 KiB', async () => {
      const filler = Array.from({ length: 25 }, (_, i) => `X-Filler-${i}: ${'a'.repeat(8 * 1024)}`);
      answers.set('/big-headers', [answer200(['Content-Type: text/html', ...filler], '<title>Big</title>')]);
      const res = await get(`${raw.base}/big-headers`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(titleOnly(raw.base, 'Big'));
    });

    it('over 256 KiB: 502 that says so, and the log line names the cause', async () => {
      const filler = Array.from({ length: 40 }, (_, i) => `X-Filler-${i}: ${'a'.repeat(8 * 1024)}`);
      answers.set('/huge-headers', [answer200(['Content-Type: text/html', ...filler], '<title>Huge</title>')]);
      logs.length = 0;
      const res = await get(`${raw.base}/huge-headers`);
      expect(res.statusCode).toBe(502);
      expect(res.json()).toEqual({ detail: 'target sent more than 256 KiB of response headers' });
      const line = logs.find((l) => l.msg === 'fetch failed: target sent more than 256 KiB of response headers');
      expect(line?.err).toMatchObject({ code: 'UND_ERR_HEADERS_OVERFLOW' });
    });
  });

  describe('Content-Type given more than once', () => {
    it('two Content-Type headers: the second one’s charset counts', async () => {
      answers.set('/ct-twice', [
        answer200(['Content-Type: text/html', 'Content-Type: text/html; charset=utf-8'], '<title>Café</title>'),
      ]);
      const res = await get(`${raw.base}/ct-twice`);
      expect(res.json()).toEqual(titleOnly(raw.base, 'Café'));
    });

    it('comma-joined values in one header are read as separate values', async () => {
      answers.set('/ct-joined', [answer200(['Content-Type: text/html, text/html; charset=utf-8'], '<title>Café</title>')]);
      const res = await get(`${raw.base}/ct-joined`);
      expect(res.json()).toEqual(titleOnly(raw.base, 'Café'));
      // The last valid type is the answer's type: JSON after HTML is not HTML.
      answers.set('/ct-json-last', [
        answer200(['Content-Type: text/html; charset=utf-8, application/json'], '<title>Café</title>'),
      ]);
      expect((await get(`${raw.base}/ct-json-last`)).json()).toEqual(titleOnly(raw.base, null));
    });

    it('two application/json headers: not HTML, every field null but the favicon', async () => {
      answers.set('/ct-json', [
        answer200(['Content-Type: application/json', 'Content-Type: application/json'], '<title>Not a page</title>'),
      ]);
      const res = await get(`${raw.base}/ct-json`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(titleOnly(raw.base, null));
    });
  });

  describe('the charset parameter, as MIME Sniffing parses it', () => {
    it('an unterminated quoted value still names the charset', async () => {
      const res = await serve('/ct-open-quote', 'text/html; charset="utf-8', bytes('<title>Café</title>'));
      expect(res.json()).toEqual(titleOnly(origin.base, 'Café'));
    });

    it('spaces around "=" make it no parameter at all: windows-1252', async () => {
      const res = await serve('/ct-spaced', 'text/html ; charset = utf-8', bytes('<title>Café</title>'));
      expect(res.json()).toEqual(titleOnly(origin.base, 'CafÃ©'));
    });

    it('an invalid type is sniffed as a missing one (HTML), as Chromium does', async () => {
      const res = await serve('/ct-invalid', 'html', bytes('<title>Café</title>'));
      expect(res.json()).toEqual(titleOnly(origin.base, 'CafÃ©'));
    });
  });

  it('an attribute after the 48th of a tag counts', async () => {
    const many = Array.from({ length: 60 }, (_, i) => `data-a${i}=1`).join(' ');
    const res = await serve('/attrs', 'text/html', bytes(`<meta ${many} name=description content=many><title>T</title>`));
    expect(res.json()).toEqual({ ...titleOnly(origin.base, 'T'), description: 'many' });
  });
});
