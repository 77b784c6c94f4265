/**
 * The stamps step: each stamp is an HTML document rendered like any part (the render service's pool, its
 * egress rules, fonts and report), once per stamp — one document with a page-sized section per stamped
 * page, its `{{page}}`, `{{pages}}`, `{{part}}`, `{{part_title}}`, `{{part_page}}` and `{{part_pages}}`
 * filled in — never once per page, nor once per page size: a scan whose every page has its own size is
 * still one render. The rendered pages are then laid on the assembly's
 * pages by the PDF work (stamp-overlay.ts). Nothing is written until every stamp has rendered.
 */
import { invalid, RenderError } from '../errors.js';
import { legalText, type PageBox, PageSelectionError, pageIndexes, type StampLayer } from '../pdf/index.js';
import type { RenderResult, ReportEntry } from '../render/index.js';
import type { Finishing, FinishingContext, StampRenderer } from './finishing-types.js';

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The stamp's HTML split into what goes once (its head) and what goes on each page (its body). */
function splitDocument(html: string): { head: string; body: string } {
  const lower = html.toLowerCase();
  const headStart = lower.indexOf('<head');
  const headEnd = lower.indexOf('</head>');
  const head = headStart >= 0 && headEnd > headStart ? html.slice(html.indexOf('>', headStart) + 1, headEnd) : '';
  const bodyStart = lower.indexOf('<body');
  const bodyEnd = lower.lastIndexOf('</body>');
  if (bodyStart < 0) return { head, body: headEnd >= 0 ? html.slice(headEnd + 7) : html };
  return { head, body: html.slice(html.indexOf('>', bodyStart) + 1, bodyEnd > bodyStart ? bodyEnd : undefined) };
}

/** The size of a page as a reader sees it: a page turned a quarter is as wide as its box is high. */
function viewedSize(box: PageBox): { width: number; height: number } {
  return box.rotate % 180 === 0 ? { width: box.width, height: box.height } : { width: box.height, height: box.width };
}

/** The numbers a stamped page fills in. */
interface PageFacts {
  page: number;
  pages: number;
  part: number;
  partTitle: string;
  partPage: number;
  partPages: number;
}

function fill(template: string, facts: PageFacts): string {
  const values: Record<string, string> = {
    page: String(facts.page),
    pages: String(facts.pages),
    part: String(facts.part),
    // The title as the outline shows it: the control characters and noncharacters it cannot hold would be
    // drawn as empty boxes.
    part_title: escapeHtml(legalText(facts.partTitle)),
    part_page: String(facts.partPage),
    part_pages: String(facts.partPages),
  };
  return template.replace(/\{\{\s*(page|pages|part|part_title|part_page|part_pages)\s*\}\}/g, (_, key: string) => values[key]);
}

/** Points as CSS writes them: at most two decimals, so a page size reads the same wherever it is written. */
const pt = (n: number): string => `${Math.round(n * 100) / 100}pt`;

/**
 * One document for a stamp's pages: a section per stamped page, each the size of its page as a reader sees
 * it (a page turned a quarter gets a stamp as wide as the page is high). Each size is a named page
 * (`@page pw-size-N`), so pages of many sizes are one render, not one each.
 */
function stampDocument(html: string, sizes: Array<{ width: number; height: number }>, facts: PageFacts[]): string {
  const { head, body } = splitDocument(html);
  const named = new Map<string, number>();
  const sizeClass = sizes.map(({ width, height }) => {
    const key = `${pt(width)} ${pt(height)}`;
    if (!named.has(key)) named.set(key, named.size);
    return `pw-size-${named.get(key)}`;
  });
  const rules = [...named].map(([size, n]) => {
    const [width, height] = size.split(' ');
    return `@page pw-size-${n} { size: ${size}; margin: 0 } .pw-size-${n} { page: pw-size-${n}; width: ${width}; height: ${height}; }`;
  });
  const sections = facts.map((f, i) => `<section class="pw-stamp-page ${sizeClass[i]}">${fill(body, f)}</section>`).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8">${fill(head, facts[0])}
<style>@page { size: ${[...named.keys()][0]}; margin: 0 } html, body { margin: 0; padding: 0; }
.pw-stamp-page { position: relative; overflow: hidden; break-after: page; }
.pw-stamp-page:last-child { break-after: auto; }
${rules.join('\n')}</style></head><body>${sections}</body></html>`;
}

/** The step: every stamp rendered and laid on its pages, its report entries labelled `stamps[N]`. */
export async function stampAssembly(doc: Finishing, ctx: FinishingContext, render?: StampRenderer): Promise<Finishing> {
  const stamps = ctx.request.stamps;
  if (!stamps?.length) return doc;
  if (!render) throw new RenderError('SERVICE_UNAVAILABLE', 'stamps cannot be rendered on this instance', 5);
  const pdf = doc.files[0].pdf;
  const boxes = await ctx.steps.pageBoxes(pdf);
  const facts: PageFacts[] = [];
  ctx.parts.forEach((part, k) => {
    for (let p = 1; p <= part.pages; p++)
      facts.push({
        page: facts.length + 1,
        pages: boxes.length,
        part: k + 1,
        partTitle: part.title,
        partPage: p,
        partPages: part.pages,
      });
  });
  const layers: StampLayer[] = [];
  const warnings: ReportEntry[] = [];
  for (const [i, stamp] of stamps.entries()) {
    const label = `stamps[${i}]`;
    let pages: number[];
    try {
      pages = stamp.pages === undefined ? boxes.map((_, k) => k) : pageIndexes(stamp.pages, boxes.length, `${label}.pages`);
    } catch (err) {
      if (err instanceof PageSelectionError) throw invalid(err.message);
      throw err;
    }
    const sizes = pages.map((k) => viewedSize(boxes[k]));
    const html = stampDocument(
      stamp.html,
      sizes,
      pages.map((k) => facts[k] ?? facts[facts.length - 1]),
    );
    let rendered: RenderResult;
    try {
      rendered = await render(html, sizes[0].width / 72, sizes[0].height / 72);
    } catch (err) {
      if (err instanceof RenderError)
        throw new RenderError(err.code, `${label}: ${err.message}`, err.retryAfterS, { cause: err });
      throw err;
    }
    if (rendered.pages !== pages.length)
      throw new RenderError(
        'RENDER_FAILED',
        `${label}: the stamp made ${rendered.pages} pages for ${pages.length} stamped pages (keep its content within one page)`,
      );
    warnings.push(...rendered.warnings.map((w) => ({ ...w, part: label, message: `${label}: ${w.message}` })));
    layers.push({ label, pdf: rendered.pdf, targets: pages, layer: stamp.layer ?? 'over' });
  }
  // Factur-X is claimed only when the first part is the invoice: its pages are the assembly's first.
  const stamped = await ctx.steps.stamp(pdf, layers, { claims: doc.claims, invoicePages: ctx.parts[0]?.pages || undefined });
  return {
    ...doc,
    files: [{ ...doc.files[0], pdf: stamped.pdf }],
    claims: doc.claims.filter((claim) => !stamped.withheld.some((w) => w.kind === 'conformance' && w.profile === claim)),
    warnings: [...doc.warnings, ...warnings, ...stamped.withheld],
  };
}
