/**
 * How an assembly was finished, on its render page: its stamps (where each lies, the pages it covers, the
 * start of its text and of its HTML), the metadata its request gave, and its split's files. Stamps,
 * metadata and file names are the customer's text: the `html` template escapes them, so a stamp's
 * `<script>` shows as text. Protection and signing are not recorded (no password is ever kept).
 */
import { escapeUnshowable } from '../../accounts/user-text.js';
import type { RecordAssembly, RecordMetadata, RecordSplit, RecordStamp } from '../../render/index.js';
import { html, type SafeHtml } from '../html.js';
import { formatCount } from './format.js';

const FIELD_WORDS: Record<RecordMetadata['field'], string> = {
  title: 'Title',
  author: 'Author',
  subject: 'Subject',
  keywords: 'Keywords',
  lang: 'Language',
};

const pagesWord = (n: number): string => `${formatCount(n)} ${n === 1 ? 'page' : 'pages'}`;

function stampRow(s: RecordStamp, i: number): SafeHtml {
  // Each cell holds one element: on a phone a cell is a row of its label and its content.
  const layer =
    s.layer === 'under'
      ? html`<span>Under the content <span class="muted small">(watermark)</span></span>`
      : html`Over the content`;
  const count = html`<span class="muted small count">(${pagesWord(s.stamped)})</span>`;
  const pages =
    s.selection === undefined
      ? html`<span>every page ${count}</span>`
      : html`<span><code class="selection">${escapeUnshowable(s.selection)}</code> ${count}</span>`;
  const text =
    s.text === undefined ? html`<span class="muted">no text</span>` : html`<q class="stamp-text">${escapeUnshowable(s.text)}</q>`;
  return html`<tr data-stamp="${i}">
<td data-label="Stamp" class="mono">stamps[${i}]</td>
<td data-label="Layer">${layer}</td>
<td data-label="Pages">${pages}</td>
<td data-label="Says" class="stamp-content"><span>${text}<code class="stamp-source">${escapeUnshowable(s.source)}</code></span></td>
</tr>`;
}

function stampsBlock(stamps: readonly RecordStamp[]): SafeHtml {
  return html`<h3 id="stamps-title">${formatCount(stamps.length)} ${stamps.length === 1 ? 'stamp' : 'stamps'}, laid in order</h3>
<table class="table assembly-table stamps" aria-labelledby="stamps-title"><thead><tr><th scope="col">Stamp</th><th scope="col">Layer</th><th scope="col">Pages</th><th scope="col">Says</th></tr></thead>
<tbody>${stamps.map(stampRow)}</tbody></table>`;
}

function metadataBlock(metadata: readonly RecordMetadata[]): SafeHtml {
  return html`<h3 id="metadata-title">Metadata</h3>
<dl class="job-facts assembly-metadata">${metadata.map(
    (m) => html`<div data-field="${m.field}"><dt>${FIELD_WORDS[m.field]}</dt><dd>${escapeUnshowable(m.value)}</dd></div>`,
  )}</dl>`;
}

/** What the split was cut by, in words. */
function splitWords(split: RecordSplit): string {
  if (split.by === 'parts') return 'one file per part';
  if (split.by === 'every') return `one file per ${split.every === undefined ? 'few pages' : pagesWord(split.every)}`;
  return 'one file per page range';
}

function splitBlock(split: RecordSplit): SafeHtml {
  const unkept = split.files - split.names.length;
  return html`<h3 id="split-title">Split into ${formatCount(split.files)} ${split.files === 1 ? 'file' : 'files'}</h3>
<p class="small">Answered as a zip, ${splitWords(split)}:</p>
<ol class="split-files">${split.names.map((n) => html`<li class="mono">${escapeUnshowable(n)}</li>`)}</ol>
${unkept > 0 ? html`<p class="muted small">The record keeps the first ${formatCount(split.names.length)} names; ${formatCount(unkept)} more files are in the zip.</p>` : ''}`;
}

/** The card of an assembly's stamps, metadata and split; nothing when it had none of them. */
export function assemblyFinishingCard(assembly: RecordAssembly): SafeHtml {
  const { stamps, metadata, split } = assembly;
  if (!stamps?.length && !metadata?.length && !split) return html``;
  return html`<section class="card assembly-finishing" aria-labelledby="finishing-title"><h2 id="finishing-title">How it was finished</h2>
${stamps?.length ? stampsBlock(stamps) : ''}
${metadata?.length ? metadataBlock(metadata) : ''}
${split ? splitBlock(split) : ''}
</section>`;
}
