import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { runFetchCli } from '../../src/metadata/cli.js';
import { html, type Origin, startOrigin } from './origin.js';

describe('pageworks fetch', () => {
  let origin: Origin;
  const config = loadConfig({ EGRESS_ALLOW: '127.0.0.1/32', LOG_LEVEL: 'silent' });
  let out: string[];
  let err: string[];

  beforeAll(async () => {
    origin = await startOrigin(
      html('<title>CLI page</title><meta name="description" content="From the CLI"><link rel="icon" href="/i.png">'),
    );
  });
  afterAll(async () => origin?.close());

  const run = async (args: string[]): Promise<number> => {
    out = [];
    err = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    return runFetchCli(args, config);
  };
  afterEach(() => vi.restoreAllMocks());

  it('prints field: value lines', async () => {
    expect(await run([`${origin.base}/p`])).toBe(0);
    expect(out.join('')).toBe(
      [
        'title: CLI page',
        'description: From the CLI',
        'og_title: null',
        'og_description: null',
        'og_image: null',
        'og_url: null',
        'canonical_url: null',
        `favicon_url: ${origin.base}/i.png`,
        '',
      ].join('\n'),
    );
  });

  it('--json prints the same object the API returns', async () => {
    expect(await run(['--json', `${origin.base}/p`])).toBe(0);
    expect(JSON.parse(out.join(''))).toEqual({
      title: 'CLI page',
      description: 'From the CLI',
      og_title: null,
      og_description: null,
      og_image: null,
      og_url: null,
      canonical_url: null,
      favicon_url: `${origin.base}/i.png`,
    });
  });

  it('goes through the egress policy; a refused URL is an input error: one line, exit code 2', async () => {
    expect(await run(['http://127.0.0.2/'])).toBe(2);
    expect(err).toEqual([
      'pageworks fetch: url not allowed: address 127.0.0.2 is loopback (EGRESS_ALLOW lets an operator allow it) (HTTP 400 from the service)\n',
    ]);
    expect(await run(['ftp://example.com/'])).toBe(2);
    expect(err.join('')).toMatch(/^pageworks fetch: url: scheme "ftp" is not allowed[^\n]*\n$/);
  });

  it('usage errors exit with 2', async () => {
    expect(await run([])).toBe(2);
    expect(err.join('')).toMatch(/^pageworks fetch: missing URL \(usage: pageworks fetch URL \[--json\]\)\n$/);
    expect(await run(['--yaml', 'http://x.example/'])).toBe(2);
  });
});
