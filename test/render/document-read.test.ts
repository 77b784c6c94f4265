/**
 * What Node keeps of the main-world read (src/render/document/document-read.ts): the page's values are
 * checked for type, count and size, and cleaned as the isolated world's read cleans them.
 */
import { describe, expect, it } from 'vitest';
import { checkedRead, READ_LIMITS } from '../../src/render/document/document-read.js';

const list = (...items: unknown[]) => Object.assign({ n: items.length }, items);

describe('the main-world read, as Node checks it', () => {
  it('keeps what the document says, cleaned: whitespace collapsed, names compared ASCII case-insensitively, the first non-empty meta', () => {
    const read = checkedRead({
      title: '  Annual\n\treport  ',
      lang: ' sv ',
      metas: list(
        { name: 'AUTHOR ', content: '  ' },
        { name: 'Author', content: 'Zoë\n Ångström' },
        { name: 'Description', content: 'd' },
      ),
      styles: list(3),
      links: list({ node: 1, href: 'https://example.test/a.css' }),
      declares: false,
      fontsFailed: false,
      resourcesBroken: false,
    });
    expect(read).toEqual({
      info: { title: 'Annual report', author: 'Zoë Ångström', subject: 'd', keywords: undefined, lang: 'sv' },
      xref: { styles: [3], links: [{ node: 1, href: 'https://example.test/a.css' }] },
      declares: false,
      fontsFailed: false,
      resourcesBroken: false,
    });
  });

  it('cuts a property at 4,096 code units, never inside a surrogate pair', () => {
    const read = checkedRead({ title: `a${'😀'.repeat(3000)}`, metas: list(), styles: list(), links: list() });
    expect(read?.info.title).toBe(`a${'😀'.repeat(2047)}`);
  });

  it('drops what is not of its shape, and reads anything but false as "look in the isolated world"', () => {
    const read = checkedRead({
      title: 5,
      lang: { toString: () => 'x' },
      metas: { n: 1e9, 0: { name: 'author', content: 7 }, 1: null },
      styles: list(-1, 1.5, '2', READ_LIMITS.nodes, 4),
      links: list({ node: 0, href: 'x'.repeat(READ_LIMITS.hrefChars + 1) }, { node: 'a', href: 'h' }, { node: 2, href: '' }),
      declares: 'no',
      fontsFailed: 0,
      resourcesBroken: null,
    });
    expect(read).toEqual({
      info: { title: undefined, author: undefined, subject: undefined, keywords: undefined, lang: undefined },
      xref: { styles: [4], links: [] },
      declares: true,
      fontsFailed: true,
      resourcesBroken: true,
    });
  });

  it('holds the declarations of a document that makes them in its metas only, found as the isolated world finds them', () => {
    const metas = list(
      { name: ' PDF-Profile ', content: '  pdf/a-2B ' },
      { name: 'pdf-profile', content: '   ' },
      { name: 'factur-x', content: `EN 16931${' '.repeat(300)}x` },
      ...Array.from({ length: 11 }, (_, i) => ({ name: 'pdf-profile', content: `P${i}` })),
      { name: 'author', content: 'A' },
    );
    const read = checkedRead({ metas, metaCount: 15, styles: list(), links: list(), declares: true, attaches: false });
    expect(read?.declarations).toEqual({
      profiles: ['pdf/a-2B', ...Array.from({ length: 9 }, (_, i) => `P${i}`)],
      facturX: [`EN 16931${' '.repeat(192)}`],
      attachments: [],
      dropped: 2,
    });
    expect(read?.info.author).toBe('A');
  });

  it('leaves the declarations to the isolated world when the read may not hold them all', () => {
    const meta = { name: 'pdf-profile', content: 'PDF/A-2b' };
    const base = { metas: list(meta), metaCount: 1, styles: list(), links: list(), declares: true, attaches: false };
    expect(checkedRead(base)?.declarations).toEqual({ profiles: ['PDF/A-2b'], facturX: [], attachments: [], dropped: 0 });
    for (const differs of [
      { attaches: true },
      { attaches: undefined },
      { declares: false },
      { metaCount: 2 },
      { metaCount: undefined },
      { metas: list({ ...meta, content: 'x'.repeat(READ_LIMITS.chars) }) },
      { metas: list({ ...meta, name: `${' '.repeat(63)}p` }) },
    ])
      expect(checkedRead({ ...base, ...differs })?.declarations, JSON.stringify(differs).slice(0, 80)).toBeUndefined();
  });

  it('is no read at all when the page returned no object', () => {
    for (const value of [undefined, null, 'FORGED', 42]) expect(checkedRead(value)).toBeUndefined();
  });
});
