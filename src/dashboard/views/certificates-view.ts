import { type CertificateView, MAX_CERTIFICATE_NAME } from '../../accounts/certificates.js';
import { escapeUnshowable } from '../../accounts/user-text.js';
import { html, type SafeHtml } from '../html.js';
import { formatDate, formatDateTime } from './format.js';
import { alert, csrfField, page, type Viewer } from './layout.js';

/** Everything the Signing certificates page shows. */
export interface CertificatesPageModel {
  viewer: Viewer;
  certificates: CertificateView[];
  now: number;
  /** False when the server has no key to seal them (SECRETS_KEY): uploads are refused, the form is disabled. */
  enabled: boolean;
  notice?: string;
  /** Why the last upload was refused (the form keeps the name typed, never the password). */
  error?: string;
  name?: string;
}

function when(ms: number): SafeHtml {
  return html`<time datetime="${new Date(ms).toISOString()}" title="${formatDateTime(ms)}">${formatDate(ms)}</time>`;
}

function expires(c: CertificateView, now: number): SafeHtml {
  if (c.notAfter > now) return when(c.notAfter);
  return html`<div><span class="badge badge-expired">Expired</span> ${when(c.notAfter)}</div>`;
}

function certificateName(c: CertificateView): SafeHtml {
  return c.name === null ? html`<span class="muted">unnamed</span>` : html`${escapeUnshowable(c.name)}`;
}

function table(model: CertificatesPageModel): SafeHtml {
  if (model.certificates.length === 0) {
    return html`<p class="empty">No signing certificates yet.${model.enabled ? ' Upload one above to sign documents.' : ''}</p>`;
  }
  const rows = model.certificates.map(
    (c) => html`<tr data-certificate-id="${c.id}"${c.notAfter <= model.now ? html` class="expired"` : ''}>
<td class="name" data-label="Name"><div>${certificateName(c)}<div class="cert-id">${c.id}</div></div></td>
<td class="dn" data-label="Subject">${escapeUnshowable(c.subject)}</td><td class="dn" data-label="Issuer">${escapeUnshowable(c.issuer)}</td>
<td class="date" data-label="Expires">${expires(c, model.now)}</td><td class="date" data-label="Created">${when(c.createdAt)}</td>
<td class="actions"><a class="btn btn-danger-outline btn-small" href="/certificates/${c.id}/delete" aria-label="Delete certificate ${escapeUnshowable(c.name ?? c.subject)}">Delete</a></td>
</tr>`,
  );
  return html`<table class="keys certs" aria-label="Signing certificates">
<thead><tr><th scope="col">Name</th><th scope="col">Subject</th><th scope="col">Issuer</th><th scope="col">Expires</th><th scope="col">Created</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function uploadForm(model: CertificatesPageModel): SafeHtml {
  const off = model.enabled ? '' : html` disabled`;
  const unavailable = model.enabled
    ? ''
    : alert(
        'warn',
        html`<strong>Signing is not enabled on this server.</strong> Its operator must set the <code>SECRETS_KEY</code> variable
(32 random bytes, e.g. <code>openssl rand -hex 32</code>) before certificates can be uploaded or used.`,
      );
  return html`<section class="card" aria-labelledby="upload-title">
<h2 id="upload-title">Upload a certificate</h2>
<p class="small muted">A PKCS#12 file (<code>.p12</code> or <code>.pfx</code>) holding the certificate, its private key (RSA or EC) and, optionally, its chain.
The private key is stored encrypted and never shown again; the password is used once to open the file and is not kept.</p>
${unavailable}${model.error ? alert('error', model.error) : ''}
<form class="upload" method="post" action="/certificates" enctype="multipart/form-data" aria-label="Upload a signing certificate">
${csrfField(model.viewer.csrfToken)}
<fieldset${off}>
<div class="field"><label for="cert-file">Certificate file</label>
<input id="cert-file" name="pkcs12" type="file" accept=".p12,.pfx,application/x-pkcs12" required></div>
<div class="field"><label for="cert-password">File password</label>
<input id="cert-password" name="password" type="password" autocomplete="off"></div>
<div class="field"><label for="cert-name">Name <span class="muted">(optional)</span></label>
<input id="cert-name" name="name" type="text" maxlength="${MAX_CERTIFICATE_NAME}" placeholder="e.g. invoices" autocomplete="off" value="${model.name ?? ''}"></div>
<button class="btn" type="submit">Upload certificate</button>
</fieldset>
</form>
</section>`;
}

/** The Signing certificates page: the upload form and the account's certificates. */
export function certificatesPage(model: CertificatesPageModel): string {
  const body = html`<div class="page-head"><div><h1>Signing certificates</h1>
<p class="lead">Certificates that sign your assembled PDFs (<code>"sign": {"certificate": "crt_…"}</code> in <code>POST /v1/assemble</code>).</p></div></div>
${model.notice ? alert('ok', model.notice) : ''}
${uploadForm(model)}
<section class="card" aria-labelledby="list-title">
<h2 id="list-title">Your certificates</h2>
${table(model)}
</section>`;
  return page({ title: 'Signing certificates', viewer: model.viewer, current: 'certificates', body });
}

/** The confirmation step before a certificate is deleted. */
export function deleteCertificatePage(viewer: Viewer, c: CertificateView): string {
  const body = html`<div class="auth"><div class="card">
<h1>Delete this certificate?</h1>
<p class="lead">${c.name ? html`“${escapeUnshowable(c.name)}” · ` : ''}${escapeUnshowable(c.subject)} · expires ${formatDate(c.notAfter)}</p>
<p>Requests that sign with <span class="prefix">${c.id}</span> will be refused from the very next one. Its private key is deleted: this cannot be undone.</p>
<form method="post" action="/certificates/${c.id}/delete">${csrfField(viewer.csrfToken)}
<button class="btn btn-danger" type="submit">Delete certificate</button></form>
<p class="switch"><a href="/certificates">Cancel</a></p>
</div></div>`;
  return page({ title: 'Delete certificate', viewer, current: 'certificates', body });
}
