/**
 * What Pageworks itself writes into a PDF stays well-formed and PDF/A-legal whatever the document gave it:
 * XMP values lose the characters XML cannot hold, language tags are read as BCP 47, attachment names lose
 * bidirectional controls and are never `.` or `..`, and a report's caps never cut the `conformance`
 * warnings that say why a claim was withheld.
 */
import * as libxml from 'libxml2-wasm';
import { describe, expect, it } from 'vitest';
import { isLanguageTag } from '../../src/pdf/profiles/language-tag.js';
import { xmpPacket } from '../../src/pdf/profiles/xmp.js';
import { checkedDeclarations } from '../../src/render/document/declarations.js';
import { fitEntries, keepEntries } from '../../src/render/report/report-size.js';
import type { ReportEntry } from '../../src/report/report.js';

describe('the XMP packet', () => {
  it('is well-formed XML whatever the title, author and keywords hold', () => {
    const packet = xmpPacket({
      title: 'State\ufffement\uffff \ud800half',
      author: 'Ada\u0001 Lovelace',
      keywords: 'bank\u0007 "statement" <&>',
      subject: 'a\u001fb\u0085c',
      lang: 'en"\u0001',
      creator: 'Pageworks',
      producer: 'Pageworks',
      date: new Date('2026-11-29T08:00:00Z'),
      extensions: [],
      pdfa: { part: 2, conformance: 'B' },
    }).toString('utf8');
    const doc = libxml.XmlDocument.fromString(packet.slice(packet.indexOf('<x:xmpmeta'), packet.indexOf('<?xpacket end')));
    doc.dispose();
    expect(packet).toContain('<rdf:li xml:lang="x-default">Statement half</rdf:li>');
    expect(packet).toContain('<rdf:li>Ada Lovelace</rdf:li>');
    expect(packet).toContain('<pdf:Keywords>bank &quot;statement&quot; &lt;&amp;&gt;</pdf:Keywords>');
  });
});

describe('language tags', () => {
  it('are well-formed BCP 47 or not', () => {
    const good = [
      'en',
      'en-US',
      'de-CH-1996',
      'zh-Hant-TW',
      'sr-Latn-RS',
      'es-419',
      'x-private',
      'i-klingon',
      'en-a-bbb-x-a-ccc',
    ];
    const bad = ['en_US', '', 'en-', '-en', 'e', 'en US', 'en"', 'en\u0001', 'toolongtag', 'en-US-', 'de-x', '123'];
    expect(good.filter((t) => !isLanguageTag(t))).toEqual([]);
    expect(bad.filter(isLanguageTag)).toEqual([]);
  });
});

describe('attachment names', () => {
  const names = (titles: string[]) =>
    checkedDeclarations({
      profiles: [],
      facturX: [],
      attachments: titles.map((title) => ({ href: 'data:,x', hrefLength: 8, title, type: '' })),
      dropped: 0,
    })?.attachments.map((a) => a.name);

  it('lose bidirectional controls and are never . or ..', () => {
    expect(
      names(['\u202efdp.exe', 'in\u200fvoice\u2066.pdf\u2069', '\u061cterms.txt', '.', '..', ' .. ', '...', '../../etc/passwd']),
    ).toEqual([
      'fdp.exe',
      'invoice.pdf',
      'terms.txt',
      'attachment',
      'attachment (2)',
      'attachment (3)',
      'attachment (4)',
      '.._.._etc_passwd',
    ]);
  });
});

describe("a report's caps", () => {
  const failed = (i: number): ReportEntry => ({
    kind: 'resource_failed',
    url: `https://cdn.example/${i}.png`,
    status: 404,
    message: `${i}.png was not loaded`,
  });
  const conformance: ReportEntry = {
    kind: 'conformance',
    profile: 'PDF/UA-1',
    clause: '7.2-34',
    element: 'html',
    message: 'add lang',
  };

  it('keep every conformance entry, in the order met, when entries are cut by count', () => {
    const entries = [...Array.from({ length: 150 }, (_, i) => failed(i)), conformance];
    const kept = keepEntries(entries, 100);
    expect(kept).toHaveLength(100);
    expect(kept.at(-1)).toEqual(conformance);
    expect(kept.slice(0, 99)).toEqual(entries.slice(0, 99));
  });

  it('keep every conformance entry when entries are cut by bytes', () => {
    const entries = [...Array.from({ length: 400 }, (_, i) => failed(i)), conformance];
    const kept = fitEntries(entries, 4096, 'at most 4 KiB');
    expect(kept.filter((e) => e.kind === 'conformance')).toEqual([conformance]);
    expect(kept.at(-1)).toMatchObject({ kind: 'truncated', dropped: 401 - (kept.length - 1) });
  });
});
