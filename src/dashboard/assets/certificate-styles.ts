/**
 * The signing certificates page: the upload form (one fieldset, disabled without a server key) and the
 * list of certificates, laid out with the key table's rules.
 */

/** The signing certificates page's rules. */
export const CERTIFICATE_STYLES = `
/* signing certificates: the upload form (one fieldset, disabled without a server key) and the list, with the keys' table rules */
form.upload fieldset { border: none; margin: 0; padding: 0; min-width: 0; display: flex; flex-wrap: wrap; align-items: flex-end; gap: 10px 14px; }
form.upload .field { margin-bottom: 0; min-width: 0; }
form.upload input[type="file"] { max-width: 100%; font: inherit; font-size: 14px; }
form.upload fieldset[disabled] { opacity: 0.6; }
table.certs th:nth-child(2), table.certs th:nth-child(3) { width: auto; }
table.certs th:nth-child(4) { width: 140px; } table.certs th:nth-child(5) { width: 115px; }
table.certs td.dn, table.certs td.name { overflow-wrap: anywhere; }
table.certs .cert-id { font: 12px/1.4 var(--mono); color: var(--muted); margin-top: 2px; }
table.certs .badge-expired { display: block; width: fit-content; margin-bottom: 4px; }
table.certs tr.expired td.dn, table.certs tr.expired td.name { color: var(--muted); }
@media (max-width: 900px) { table.certs td > div { min-width: 0; } table.certs .badge-expired { display: inline-block; margin: 0 6px 0 0; } }
.badge-expired { background: var(--danger-soft); color: var(--danger); font-family: inherit; }
@media (max-width: 700px) {
  form.upload .field { flex: 1 1 100%; }
}`;
