/**
 * The report names what a document asked for late or indirectly (test/fixtures/render/late-resources.ts),
 * exactly, and the request oracle (report-oracle.ts, a bare page of the same browser) agrees: every entry
 * it confirms, every request it saw fail named. The saved real pages are held against the oracle by
 * `npm run bench -- render-report-oracle` (minutes, so not here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../src/net/policy.js';
import { BrowserPool } from '../../src/render/pool/browser-pool.js';
import { toPrintParams } from '../../src/render/request/options.js';
import type { ReportEntry } from '../../src/report/report.js';
import { lateDocuments } from '../fixtures/render/late-resources.js';
import { noDns } from '../helpers/render.js';
import { ReportOracle } from './report-oracle.js';
import { compareReport, mismatchLines } from './report-oracle-compare.js';

let pool: BrowserPool;
let oracle: ReportOracle;

beforeAll(async () => {
  [pool, oracle] = await Promise.all([
    BrowserPool.start({
      policy: createEgressPolicy({ allow: [], lookup: noDns }),
      concurrency: 1,
      queueLimit: 4,
      timeoutMs: 30_000,
    }),
    ReportOracle.launch(),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([pool?.close(), oracle?.close()]);
});

const DNS_WORDS = "could not be found (check the address, or the render server's DNS)";

/** The entry of a URL no resolver knows. */
function blocked(url: string): ReportEntry {
  const { hostname, pathname } = new URL(url);
  const file = pathname.split('/').pop();
  return {
    kind: 'resource_blocked',
    url,
    reason: 'unresolvable',
    message: `${file} was not loaded: the host ${hostname} ${DNS_WORDS}`,
  };
}

/** The entry of a web font whose file is on a host no resolver knows. */
function fontFailed(family: string, url: string): ReportEntry {
  const { hostname, pathname } = new URL(url);
  return {
    kind: 'font_failed',
    family,
    url,
    message: `The font "${family}" could not be loaded from ${pathname.split('/').pop()} (the host ${hostname} ${DNS_WORDS}); its text printed in a fallback font`,
  };
}

describe('resources asked for late or indirectly', () => {
  it.each(lateDocuments().map((d) => [d.name, d] as const))(
    '%s: the report names them, the oracle agrees',
    async (_name, doc) => {
      const { warnings } = await pool.render('a', doc.html, toPrintParams({}));
      const expected = [...doc.blocked.map(blocked), ...(doc.fonts ?? []).map((f) => fontFailed(f.family, f.url))];
      const byUrl = (a: ReportEntry, b: ReportEntry) => a.kind.localeCompare(b.kind) || a.message.localeCompare(b.message);
      expect([...warnings].sort(byUrl)).toEqual(expected.sort(byUrl));
      expect(mismatchLines(doc.name, compareReport(warnings, await oracle.load(doc.html)))).toEqual([]);
    },
  );
});

describe('what a document asks for that no request can get', () => {
  it('addresses relative to nothing and an inline image that is not one: the report names them, the oracle agrees', async () => {
    const html =
      '<!doctype html><html><head><link rel="stylesheet" href="css/site.css"><script src="//cdn.example/app.js"></script></head>' +
      '<body><h1>Invoice</h1><img src="/img/logo.png" alt="ACME"><img srcset="seal.png 1x, seal@2x.png 2x" alt="seal">' +
      '<img src="data:image/png;base64,AAAA" alt="broken"><img src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==" alt="ok">' +
      '<iframe src="terms.html"></iframe></body></html>';
    const { warnings } = await pool.render('a', html, toPrintParams({}));
    const relative = (url: string): ReportEntry => ({
      kind: 'resource_failed',
      url,
      error: 'relative',
      message: `${url} was not loaded: its address is relative, and a document sent as HTML has no address of its own to resolve it against (write the full https:// address, add <base href="https://…/"> to the head, or inline it as a data: URL)`,
    });
    expect(warnings).toEqual([
      relative('/img/logo.png'),
      relative('seal.png'),
      {
        kind: 'resource_failed',
        url: 'data:image/png',
        error: 'undecodable',
        message:
          'an inline image/png (data: URL) was not loaded: its answer is not an image the browser can read (a broken-image icon printed in its place)',
      },
      relative('css/site.css'),
      relative('//cdn.example/app.js'),
      relative('terms.html'),
    ]);
    expect(mismatchLines('relative', compareReport(warnings, await oracle.load(html)))).toEqual([]);
  });
});
