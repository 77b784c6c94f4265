import { html } from '../html.js';
import { assembleCurl, docsUrl, jobCurl, metadataCurl, type PublicUrls, renderCurl, verifyWebhookExample } from './examples.js';
import { codeBlock, page, type Viewer } from './layout.js';

/**
 * Standard PDFs: the profiles a document may declare, the claim rule, and how to check a PDF with
 * veraPDF (explicit flavours: `0` misjudges a PDF that claims two). A conformance warning links here.
 */
function standardsSection() {
  return html`<section class="card" aria-labelledby="docs-standards">
<div class="card-head"><div><h2 id="docs-standards">Standard PDFs: archival, accessible, e-invoice</h2><p>The document declares them in its own markup; there is no request field.</p></div></div>
<ol class="steps">
<li>Declare the profiles in the document's head: one or more of <code>PDF/A-2b</code>, <code>PDF/A-2u</code>, <code>PDF/A-3b</code>, <code>PDF/A-3u</code>, <code>PDF/UA-1</code>, and for an invoice Factur-X with its XML attached:
${codeBlock('declare-profiles', '<meta name="pdf-profile" content="PDF/A-3b, PDF/UA-1">\n<meta name="factur-x" content="EN 16931">\n<link rel="attachment" href="data:text/xml;base64,…" title="factur-x.xml">', 'markup that declares the standards a PDF must meet')}</li>
<li>The claim rule: the PDF claims a standard only when it meets it. What it cannot meet is a warning (<code>conformance</code>) naming the standard, the clause and the element, and that standard is left out; the others stay. With <code>Prefer: handling=strict</code> the render is refused instead (<code>PDF/UA-1 could not be claimed (1 warning, strict handling)</code>).</li>
<li>The answer says what the PDF claims: <code>X-Render-Claims: PDF/A-3b, PDF/UA-1</code> (absent when it claims nothing), as do a job's <code>claims</code>, its PDF download and the <a href="/renders">Renders</a> list. Factur-X shows as <code>Factur-X</code>; its level is in the PDF.</li>
<li>Check a PDF yourself with veraPDF, one flavour per claim: <code>verapdf --flavour 3b invoice.pdf</code>, then <code>verapdf --flavour ua1 invoice.pdf</code>. Do not use <code>--flavour 0</code> on a PDF that claims two profiles: it reports a failure (rule 7.21.7-1) that the explicit flavours do not.</li>
</ol>
</section>`;
}

/**
 * Assembling: rendered HTML and existing PDFs as one file, and what an existing PDF does not bring with it.
 * A render page's warnings about a part (content taken out, an owner's restrictions) link here.
 */
function assemblingSection(urls: PublicUrls) {
  return html`<section class="card" aria-labelledby="docs-assembling">
<div class="card-head"><div><h2 id="docs-assembling">Assemble: several documents, one PDF</h2><p>Rendered HTML and your own PDFs, in order, with one outline; numbered, stamped, split, protected and signed in the same request.</p></div></div>
<ol class="steps">
<li>Send the parts: HTML to render, and PDFs uploaded as files (or as base64 in <code>"pdf"</code>, or by <code>"url"</code>):
${codeBlock('curl-assemble', assembleCurl(urls.render), 'curl example that assembles an invoice and an uploaded PDF')}</li>
<li>An existing PDF is untrusted: what in it acts on its reader (JavaScript, actions that start programs or send form data, <code>javascript:</code> links, other signers' signature fields) is taken out, and the render's warnings name each kind; its attachments are kept and named.</li>
<li>An encrypted PDF that opens without a password is read when its owner allows assembling it. The assembly is a new file: the part's other restrictions (no printing, no copying) are not carried over, and a warning says which. To restrict the assembly, protect it: <code>"protect": {"owner_password": "…", "allow": ["print"]}</code>. A PDF that needs a password to open, or whose owner forbids assembling it, is refused, naming the part.</li>
<li>Page selection, stamps such as "Page 3 of 12", metadata and splitting are in the <a href="${docsUrl(urls.render)}">Render API reference</a>.</li>
</ol>
</section>`;
}

/** Getting started: from a key to a first PDF and a first metadata fetch, with this server's addresses. */
export function docsPage(viewer: Viewer, urls: PublicUrls): string {
  const body = html`<div class="page-head"><div><h1>Get started</h1>
<p class="lead">Two APIs, one account. Each has its own base address and its own keys.</p></div></div>
<section class="card" aria-labelledby="docs-render">
<div class="card-head"><div><h2 id="docs-render">Render: HTML to PDF</h2><p>Base address <code>${urls.render}</code></p></div></div>
<ol class="steps">
<li><a href="/keys#render-keys">Create a render key</a> and keep it in an environment variable:
${codeBlock('export-render', 'export PAGEWORKS_RENDER_KEY=pwr_live_…', 'export the render key')}</li>
<li>Send HTML, get a PDF back:
${codeBlock('curl-render', renderCurl(urls.render), 'curl example for the render API')}</li>
<li>Page size, margins, scale and background printing are options; see the <a href="${docsUrl(urls.render)}">Render API reference</a>.</li>
</ol>
</section>
${assemblingSection(urls)}
<section class="card" aria-labelledby="docs-jobs">
<div class="card-head"><div><h2 id="docs-jobs">Render jobs and webhooks</h2><p>For batches and long documents: queue the render, get a signed webhook when it is done.</p></div></div>
<ol class="steps">
<li>Submit a job with a webhook address; the answer is <code>202</code> with the job (<code>job_…</code>). The <code>Idempotency-Key</code> makes a retried submit return the same job:
${codeBlock('curl-job', jobCurl(urls.render), 'curl example that submits a render job with a webhook')}</li>
<li>Reveal your webhook signing secret (<code>whsec_…</code>) on the <a href="/jobs">Jobs</a> page and keep it in <code>PAGEWORKS_WEBHOOK_SECRET</code>.</li>
<li>When the job succeeds or fails, your receiver gets <code>job.succeeded</code> or <code>job.failed</code>, signed (Standard Webhooks). Check every delivery before trusting it, on the raw body:
${codeBlock('verify-webhook', verifyWebhookExample(), 'a webhook receiver that verifies each delivery with verifyWebhook')}</li>
<li>Download the PDF from <code>pdf.url</code> with the same key within 24 hours. The <a href="/jobs">Jobs</a> page lists every job, its webhook attempts and a Cancel button while it waits or runs.</li>
</ol>
</section>
<section class="card" aria-labelledby="docs-metadata">
<div class="card-head"><div><h2 id="docs-metadata">Metadata: page details</h2><p>Base address <code>${urls.metadata}</code></p></div></div>
<ol class="steps">
<li><a href="/keys#metadata-keys">Create a metadata key</a> and keep it in an environment variable:
${codeBlock('export-metadata', 'export PAGEWORKS_METADATA_KEY=pwm_live_…', 'export the metadata key')}</li>
<li>Ask for a page's title, description, Open Graph tags, canonical link and favicon:
${codeBlock('curl-metadata', metadataCurl(urls.metadata), 'curl example for the metadata API')}</li>
<li>Every field is always present (null when the page has none); see the <a href="${docsUrl(urls.metadata)}">Metadata API reference</a>.</li>
</ol>
</section>
${standardsSection()}
<section class="card" aria-labelledby="docs-keys">
<h2 id="docs-keys">Keys and limits</h2>
<p>Render keys start with <code>pwr_live_</code>, metadata keys with <code>pwm_live_</code>; a key works only for its own service.
A key is shown once, when you create it. Use one key per application or environment, so you can revoke one without touching the others.
To rotate: create the new key, deploy it, then revoke the old one. Revocation takes effect on the next request.</p>
<p class="muted">Rate limits apply per account across all of its keys; see <a href="/usage">Usage</a> for yours.</p>
</section>`;
  return page({ title: 'Get started', viewer, current: 'docs', body });
}
