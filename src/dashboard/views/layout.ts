import { ASSET_URLS, LOGO_SVG } from '../assets.js';
import { type HtmlValue, html, raw, type SafeHtml } from '../html.js';

/** The signed-in user, as the page chrome needs it. */
export interface Viewer {
  email: string;
  csrfToken: string;
}

/** The sections of the signed-in navigation. */
export type Section = 'keys' | 'certificates' | 'jobs' | 'renders' | 'usage' | 'docs' | 'account';

const NAV: Array<[Section, string, string]> = [
  ['keys', '/keys', 'API keys'],
  ['certificates', '/certificates', 'Signing'],
  ['jobs', '/jobs', 'Jobs'],
  ['renders', '/renders', 'Renders'],
  ['usage', '/usage', 'Usage'],
  ['docs', '/docs', 'Docs'],
  ['account', '/account', 'Account'],
];

/** The hidden CSRF field every state-changing form carries. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** An alert box; `kind` picks the colour and the ARIA role. */
export function alert(kind: 'ok' | 'error' | 'warn', message: HtmlValue): SafeHtml {
  const role = kind === 'error' ? 'alert' : 'status';
  return html`<div class="alert alert-${kind}" role="${role}">${message}</div>`;
}

/**
 * A form's error, named by `id`: the form's action ends in `#id`, so the page answered with the error
 * opens scrolled to it and the browser focuses it (it takes focus, not Tab stops: tabindex -1), and the
 * next Tab reaches the field it is about. Works without the script.
 */
export function formError(id: string, message: HtmlValue): SafeHtml {
  return html`<div class="alert alert-error form-error" role="alert" id="${id}" tabindex="-1">${message}</div>`;
}

/** The attributes of a form field: described by its hint, and by the error when it is about this field. */
export function fieldAttrs(opts: { hintId?: string; errorId?: string }): SafeHtml {
  const describedBy = [opts.hintId, opts.errorId].filter(Boolean).join(' ');
  return html`${describedBy ? html` aria-describedby="${describedBy}"` : ''}${opts.errorId ? html` aria-invalid="true"` : ''}`;
}

/** A copy-to-clipboard button for the element with this id (hidden until the script runs). */
export function copyButton(targetId: string, label = 'Copy', extraClass = ''): SafeHtml {
  return html`<button type="button" class="btn btn-secondary btn-small ${extraClass}" data-copy="${targetId}" hidden>${label}</button>`;
}

/** A code block with a copy button. */
export function codeBlock(id: string, code: string, label: string): SafeHtml {
  return html`<div class="code"><pre id="${id}" aria-label="${label}" tabindex="0">${code}</pre>${copyButton(id)}</div>`;
}

function header(viewer: Viewer | undefined, current: Section | undefined): SafeHtml {
  const brand = html`<a class="brand" href="/">${raw(LOGO_SVG)}<span>Pageworks</span></a>`;
  if (!viewer) return html`<header class="topbar"><div class="topbar-inner">${brand}</div></header>`;
  const links = NAV.map(
    ([id, href, label]) => html`<a href="${href}"${id === current ? raw(' aria-current="page"') : ''}>${label}</a>`,
  );
  return html`<header class="topbar"><div class="topbar-inner">${brand}
  <nav class="nav" aria-label="Main">${links}</nav>
  <div class="who"><span>${viewer.email}</span>
    <form method="post" action="/logout">${csrfField(viewer.csrfToken)}<button class="btn btn-secondary btn-small" type="submit">Log out</button></form>
  </div></div></header>`;
}

/** A whole HTML document: head, header with navigation (when signed in), main content. */
export function page(opts: { title: string; viewer?: Viewer; current?: Section; body: SafeHtml }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · Pageworks</title>
<link rel="icon" href="${ASSET_URLS.icon}" type="image/svg+xml">
<link rel="stylesheet" href="${ASSET_URLS.css}">
<script src="${ASSET_URLS.js}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(opts.viewer, opts.current)}
<main id="main">
${opts.body}
</main>
<footer class="footer">Pageworks · HTML to PDF and page metadata APIs</footer>
</body>
</html>
`.value;
}
