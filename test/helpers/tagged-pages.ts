/**
 * A tagged PDF of many pages, written by hand as a tagged print lays one out: each page a section (Sect)
 * holding a heading (H1, with an ID), `paragraphs` paragraphs (P) and a link to the next page's named
 * destination (Link, its annotation an OBJR), every section under one Document element; the parent tree,
 * the ID tree, one outline item and one named destination per page. Made at test time: 1,000 pages of 50
 * paragraphs are about 11 MiB.
 */
import { classicPdf } from './hostile-inputs.js';

/** Objects before the first page's: catalog, page tree, struct tree root, Document, outline root, font, parent tree, dests. */
const HEAD = 8;

/** What each page's objects are, by their place among the page's: then the paragraphs from 7 on. */
export const PAGE_OBJECT = { page: 0, content: 1, annotation: 2, outlineItem: 3, section: 4, heading: 5, link: 6 } as const;

/** Where page `i`'s objects are in a tagged PDF of `paragraphs` paragraphs a page. */
export function taggedPageObjects(paragraphs: number): (i: number, k: number) => number {
  return (i, k) => HEAD + 1 + i * (7 + paragraphs) + k;
}

/** A tagged PDF of `pages` pages (see the file's comment). */
export function taggedPagesPdf(pages: number, opts: { paragraphs?: number } = {}): Buffer {
  const paragraphs = opts.paragraphs ?? 1;
  const at = taggedPageObjects(paragraphs);
  const { page, content, annotation, outlineItem, section, heading, link } = PAGE_OBJECT;
  const ref = (num: number) => `${num} 0 R`;
  const key = (prefix: string, i: number) => `(${prefix}${String(i).padStart(6, '0')})`;
  const all = Array.from({ length: pages }, (_, i) => i);
  const paras = Array.from({ length: paragraphs }, (_, j) => 7 + j);
  // Each page's marked content in MCID order: the heading 0, the link 1, the paragraphs from 2.
  const marked = (i: number) => [heading, link, ...paras].map((k) => ref(at(i, k))).join(' ');
  const parents = [...all.map((i) => `${i} [${marked(i)}]`), ...all.map((i) => `${pages + i} ${ref(at(i, link))}`)];
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R /StructTreeRoot 3 0 R /MarkInfo << /Marked true >> /Outlines 5 0 R /Names << /Dests 8 0 R >> /Lang (en) >>',
    `<< /Type /Pages /Kids [${all.map((i) => ref(at(i, page))).join(' ')}] /Count ${pages} >>`,
    `<< /Type /StructTreeRoot /K [4 0 R] /ParentTree 7 0 R /ParentTreeNextKey ${2 * pages} /IDTree << /Names [${all.map((i) => `${key('h', i)} ${ref(at(i, heading))}`).join(' ')}] >> >>`,
    `<< /Type /StructElem /S /Document /P 3 0 R /K [${all.map((i) => ref(at(i, section))).join(' ')}] >>`,
    `<< /Type /Outlines /First ${ref(at(0, outlineItem))} /Last ${ref(at(pages - 1, outlineItem))} /Count ${pages} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Nums [${parents.join(' ')}] >>`,
    `<< /Names [${all.map((i) => `${key('p', i)} [${ref(at(i, page))} /XYZ 0 842 0]`).join(' ')}] >>`,
  ];
  for (const i of all) {
    const next = (i + 1) % pages;
    const pg = `/Pg ${ref(at(i, page))}`;
    const stream = [
      `/H1 <</MCID 0>> BDC BT /F1 18 Tf 72 780 Td (Heading ${i + 1}) Tj ET EMC`,
      `/Link <</MCID 1>> BDC BT /F1 10 Tf 72 760 Td (Go to page ${next + 1}) Tj ET EMC`,
      ...paras.map(
        (k, j) => `/P <</MCID ${k - 5}>> BDC BT /F1 10 Tf 72 ${740 - j * 12} Td (Paragraph ${j + 1} of page ${i + 1}.) Tj ET EMC`,
      ),
    ].join('\n');
    const item = [`/Title (Page ${i + 1}) /Parent 5 0 R /Dest [${ref(at(i, page))} /Fit]`];
    if (i > 0) item.push(`/Prev ${ref(at(i - 1, outlineItem))}`);
    if (i < pages - 1) item.push(`/Next ${ref(at(i + 1, outlineItem))}`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 6 0 R >> >> /Contents ${ref(at(i, content))} /StructParents ${i} /Annots [${ref(at(i, annotation))}] /Tabs /S >>`,
      `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
      `<< /Type /Annot /Subtype /Link /Rect [72 755 200 772] /Border [0 0 0] /Dest ${key('p', next)} /StructParent ${pages + i} /Contents (Go to page ${next + 1}) >>`,
      `<< ${item.join(' ')} >>`,
      `<< /Type /StructElem /S /Sect /P 4 0 R ${pg} /K [${[heading, link, ...paras].map((k) => ref(at(i, k))).join(' ')}] >>`,
      `<< /Type /StructElem /S /H1 /P ${ref(at(i, section))} ${pg} /K 0 /ID ${key('h', i)} >>`,
      `<< /Type /StructElem /S /Link /P ${ref(at(i, section))} ${pg} /K [1 << /Type /OBJR /Obj ${ref(at(i, annotation))} >>] /Alt (Go to page ${next + 1}) >>`,
      ...paras.map((k) => `<< /Type /StructElem /S /P /P ${ref(at(i, section))} ${pg} /K ${k - 5} >>`),
    );
  }
  return classicPdf(objects);
}
