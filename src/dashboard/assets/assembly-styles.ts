/**
 * An assembly's parts, stamps and finishing: titles, selections and a stamp's HTML are the customer's and
 * may be long, so they wrap; on a phone each part is a card.
 */

/** The rules of an assembly's parts, stamps and finishing. */
export const ASSEMBLY_STYLES = `
/* an assembly's parts and stamps: titles, selections and a stamp's HTML are the customer's and may be long */
table.assembly-table td.part-title, table.assembly-table td.stamp-content { overflow-wrap: anywhere; min-width: 0; }
table.assembly-table .turned, table.assembly-table .count { white-space: nowrap; }
.stamp-source { display: block; width: fit-content; max-width: 100%; margin-top: 4px; font-size: 12px; overflow-wrap: anywhere; white-space: pre-wrap; }
.split-files { margin: 4px 0 8px; padding-left: 24px; font-size: 14px; }
.split-files li { overflow-wrap: anywhere; }
.assembly-finishing h3 { margin: 14px 0 6px; font-size: 15px; }
@media (max-width: 640px) {
  table.assembly-table, table.assembly-table tbody, table.assembly-table tr, table.assembly-table td { display: block; width: auto; }
  table.assembly-table thead { position: absolute; left: -9999px; }
  table.assembly-table tr { border: 1px solid var(--border); border-radius: 8px; padding: 8px 12px; margin-bottom: 10px; }
  table.assembly-table td { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; padding: 4px 0; border: none; text-align: right; }
  table.assembly-table td > * { min-width: 0; }
  /* A stamp's words and HTML take the card's width under their label, read from the left. */
  table.assembly-table td.stamp-content { display: block; text-align: left; }
  table.assembly-table td.stamp-content::before { display: block; margin-bottom: 2px; }
  table.assembly-table td[data-label]::before { content: attr(data-label); color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; text-align: left; flex: none; }
}
`;
