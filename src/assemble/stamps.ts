/**
 * The stamps step: each stamp is an HTML document rendered like any part (the render service's pool, its
 * egress rules, fonts and report), once per stamp and page size — one document with a page-sized section
 * per stamped page, its `{{page}}`, `{{pages}}`, `{{part}}`, `{{part_title}}`, `{{part_page}}` and
 * `{{part_pages}}` filled in — never once per page. The rendered pages are then laid on the assembly's
 * pages by the PDF work (stamp-overlay.ts). Nothing is written until every stamp has rendered.
 */
import { invalid, RenderError } from '../errors.js';
import { type PageBox, PageSelectionError, pageIndexes, type StampLayer } from '../pdf/index.js';
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
    part_title: escapeHtml(facts.partTitle),
    part_page: String(facts.partPage),
    part_pages: String(facts.partPages),
  };
  return template.replace(/\{\{\s*(page|pages|part|part_title|part_page|part_pages)\s*\}\}/g, (_, key: string) => values[key]);
}

/**
 * One document for the stamped pages of one size: a section the size of the page per stamped page, the
 * size a reader sees (a page turned a quarter gets a stamp as wide as the page is high).
 */
function stampDocument(html: string, box: { width: number; height: number }, facts: PageFacts[]): string {
  const { head, body } = splitDocument(html);
  const size = `${box.width}pt ${box.height}pt`;
  const sections = facts.map((f) => `<section class="pw-stamp-page">${fill(body, f)}</section>`).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8">${fill(head, facts[0])}
<style>@page { size: ${size}; margin: 0 } html, body { margin: 0; padding: 0; }
.pw-stamp-page { position: relative; width: ${box.width}pt; height: ${box.height}pt; overflow: hidden; break-after: page; }
.pw-stamp-page:last-child { break-after: auto; }</style></head><body>${sections}</body></html>`;
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
    // One render per page size as the reader sees it, in the order of the pages.
    const bySize = new Map<string, number[]>();
    for (const k of pages) {
      const { width, height } = viewedSize(boxes[k]);
      const key = `${width}x${height}`;
      bySize.set(key, [...(bySize.get(key) ?? []), k]);
    }
    for (const group of bySize.values()) {
      const box = viewedSize(boxes[group[0]]);
      const html = stampDocument(
        stamp.html,
        box,
        group.map((k) => facts[k] ?? facts[facts.length - 1]),
      );
      let rendered: RenderResult;
      try {
        rendered = await render(html, box.width / 72, box.height / 72);
      } catch (err) {
        if (err instanceof RenderError)
          throw new RenderError(err.code, `${label}: ${err.message}`, err.retryAfterS, { cause: err });
        throw err;
      }
      if (rendered.pages !== group.length)
        throw new RenderError(
          'RENDER_FAILED',
          `${label}: the stamp made ${rendered.pages} pages for ${group.length} stamped pages (keep its content within one page)`,
        );
      warnings.push(...rendered.warnings.map((w) => ({ ...w, part: label, message: `${label}: ${w.message}` })));
      layers.push({ pdf: rendered.pdf, targets: group, layer: stamp.layer ?? 'over' });
    }
  }
  const stamped = await ctx.steps.stamp(pdf, layers);
  return { ...doc, files: [{ ...doc.files[0], pdf: stamped }], warnings: [...doc.warnings, ...warnings] };
}
