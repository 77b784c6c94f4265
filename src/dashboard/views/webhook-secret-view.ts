import { html, type SafeHtml } from '../html.js';
import { formatDateTime } from './format.js';
import { alert, copyButton, csrfField, page, type Viewer } from './layout.js';

/** A rotation whose replaced secret still signs beside the current one. */
export interface RotationOverlap {
  /** When the current secret replaced the one before it. */
  rotatedAt: number;
  /** Until when that replaced secret still signs. */
  until: number;
}

/** What the Jobs page's secret card shows. */
export interface SecretCardModel {
  viewer: Viewer;
  /** The signing secret, only in the answer to "Reveal" and "Rotate". */
  secret?: string;
  /** After a rotation: until when the old secret still signs (null: there was none). */
  rotatedUntil?: number | null;
  /** After a rotation made during the previous one's overlap: the secret before that one was dropped. */
  droppedPrevious?: boolean;
}

function rotatedAlert(model: SecretCardModel): SafeHtml | '' {
  if (model.rotatedUntil === undefined) return '';
  const shown = 'The webhook secret was rotated. This is the only time it is shown: store it now.';
  if (model.rotatedUntil === null) return alert('ok', shown);
  const overlap = `Until ${formatDateTime(model.rotatedUntil)} every delivery carries a signature with the old secret too, so update your receivers before then.`;
  // The store keeps one replaced secret: rotating within the overlap drops the one before it at once.
  const dropped = model.droppedPrevious ? ' The secret from before the previous rotation no longer signs.' : '';
  return alert(model.droppedPrevious ? 'warn' : 'ok', `${shown} ${overlap}${dropped}`);
}

/** The Jobs page's card of the signing secret: reveal, the secret after a reveal or rotation, and "Rotate secret…". */
export function secretCard(model: SecretCardModel): SafeHtml {
  const token = model.viewer.csrfToken;
  const shown = model.secret
    ? html`<div class="secret"><code id="webhook-secret">${model.secret}</code>${copyButton('webhook-secret')}</div>`
    : html`<form method="post" action="/jobs/webhook-secret/reveal">${csrfField(token)}<button class="btn btn-secondary btn-small" type="submit">Reveal secret</button></form>`;
  return html`<section class="card" aria-labelledby="secret-title"><div class="card-head"><div><h2 id="secret-title">Webhook signing secret</h2>
<p>Every webhook is signed with it (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Verify each delivery before trusting it.</p></div></div>
${rotatedAlert(model)}${shown}
<p class="rotate"><a class="btn btn-danger-outline btn-small" href="/jobs/webhook-secret/rotate">Rotate secret…</a>
<span class="hint">For 24 hours after a rotation, deliveries are signed with both the new and the old secret.</span></p></section>`;
}

function overlapParagraphs(overlap: RotationOverlap | undefined): SafeHtml {
  if (!overlap)
    return html`<p>For the next 24 hours every delivery carries two signatures (<code>v1,&lt;new&gt; v1,&lt;old&gt;</code>), so receivers that still hold the old secret keep verifying. Update them within that time: after it, only the new secret verifies.</p>`;
  return html`${alert(
    'warn',
    html`<strong>The last rotation (${formatDateTime(overlap.rotatedAt)}) is still in its 24 hours.</strong> Rotating again ends them: the secret from before that rotation stops verifying now, and receivers that still hold only it reject every delivery.`,
  )}
<p>For the next 24 hours every delivery carries two signatures (<code>v1,&lt;new&gt; v1,&lt;current&gt;</code>), so receivers that hold the current secret keep verifying. Update them within that time: after it, only the new secret verifies.</p>`;
}

/**
 * The confirmation step before the webhook secret is rotated; `replaces` names the current secret (its
 * version), `overlap` is the last rotation while the secret it replaced still signs.
 */
export function rotatePage(viewer: Viewer, replaces: string, overlap?: RotationOverlap): string {
  const body = html`<div class="auth"><div class="card">
<h1>Rotate the webhook secret?</h1>
<p class="lead">A new signing secret is made and shown once, on the next page.</p>
${overlapParagraphs(overlap)}
<form method="post" action="/jobs/webhook-secret/rotate">${csrfField(viewer.csrfToken)}<input type="hidden" name="replaces" value="${replaces}">
<button class="btn btn-danger" type="submit">Rotate secret</button></form>
<p class="switch"><a href="/jobs">Cancel</a></p>
</div></div>`;
  return page({ title: 'Rotate webhook secret', viewer, current: 'jobs', body });
}
