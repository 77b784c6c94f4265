/**
 * An assembly's parts on its render page: each part in order with its outline title, what it was (rendered
 * HTML, a PDF sent with the request, a PDF fetched from an address), the pages it kept and how they were
 * turned, its pages in the assembly and how many warnings are its own. Titles and addresses are the
 * customer's text: the `html` template escapes them.
 */
import { escapeUnshowable } from '../../accounts/user-text.js';
import type { RecordAssembly, RecordPart, RenderRecord } from '../../render/index.js';
import { html, type SafeHtml } from '../html.js';
import { assemblyFinishingCard } from './assembly-finishing-view.js';
import { formatCount } from './format.js';

const KIND_WORDS: Record<RecordAssembly['parts'][number]['kind'], string> = {
  html: 'HTML, rendered',
  pdf: 'PDF, sent with the request',
  url: 'PDF, fetched',
};

const NONE = html`<span class="muted">–</span>`;

/** The pages a part kept and their turn: "2-" and "turned 90°", or "all". */
function selectionCell(p: RecordPart): SafeHtml {
  const selection =
    p.selection === undefined
      ? html`<span class="muted">all</span>`
      : html`<code class="selection">${escapeUnshowable(p.selection)}</code>`;
  return html`<span>${selection}${p.rotate ? html` <span class="turned">turned ${p.rotate}°</span>` : ''}</span>`;
}

/** The parts card of an assembly's render page, then how it was finished; nothing for a render that is not an assembly. */
export function assemblyPartsCard(r: RenderRecord): SafeHtml {
  const assembly = r.assembly;
  if (!assembly) return html``;
  const rows = assembly.parts.map(
    (p) => html`<tr data-part="${p.label}">
<td data-label="Part" class="mono">${p.label}</td>
<td data-label="Title" class="part-title">${p.outlineTitle === undefined ? NONE : escapeUnshowable(p.outlineTitle)}</td>
<td data-label="What"><span>${KIND_WORDS[p.kind]}${p.url ? html`<br><span class="mono small">${escapeUnshowable(p.url)}</span>` : ''}</span></td>
<td data-label="Pages kept" class="part-pages">${selectionCell(p)}</td>
<td data-label="Pages" class="num">${p.pages === null ? NONE : formatCount(p.pages)}</td>
<td data-label="Warnings" class="num">${p.warnings === 0 ? html`<span class="muted">0</span>` : html`<a href="#warnings-title">${formatCount(p.warnings)}</a>`}</td>
</tr>`,
  );
  const unkept = assembly.partCount - assembly.parts.length;
  return html`<section class="card" aria-labelledby="parts-title"><h2 id="parts-title">${formatCount(assembly.partCount)} ${assembly.partCount === 1 ? 'part' : 'parts'}, in order</h2>
<table class="table assembly-table"><thead><tr><th scope="col">Part</th><th scope="col">Title</th><th scope="col">What</th><th scope="col">Pages kept</th><th scope="col" class="num">Pages</th><th scope="col" class="num">Warnings</th></tr></thead>
<tbody>${rows}</tbody></table>
${unkept > 0 ? html`<p class="muted small">The record keeps the first ${formatCount(assembly.parts.length)}; ${formatCount(unkept)} more are in the PDF.</p>` : ''}
</section>
${assemblyFinishingCard(assembly)}`;
}
