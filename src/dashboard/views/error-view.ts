import { html } from '../html.js';
import { page, type Viewer } from './layout.js';

/** A full error page: a heading, one sentence, a way back. */
export function errorPage(opts: { title: string; message: string; viewer?: Viewer }): string {
  const back = opts.viewer
    ? html`<a class="btn btn-secondary" href="/keys">Back to API keys</a>`
    : html`<a class="btn btn-secondary" href="/login">Go to log in</a>`;
  const body = html`<div class="auth"><div class="card"><h1>${opts.title}</h1><p class="lead">${opts.message}</p>${back}</div></div>`;
  return page({ title: opts.title, viewer: opts.viewer, body });
}
