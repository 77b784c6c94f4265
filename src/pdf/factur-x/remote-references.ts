/**
 * What in an invoice's XML points outside it for a reader to fetch: an `xml-stylesheet` processing
 * instruction or an `xsi:schemaLocation` (or `xsi:noNamespaceSchemaLocation`) naming an address with a
 * scheme (`https:`, `file:`, …) or a network path (`//host/…`). A receiver's XML tool may follow it: a
 * beacon telling a third party the invoice was opened, or a stylesheet that shows another invoice.
 * Read from the parsed document, never matched over the file's bytes.
 */
import type { XmlDocument } from 'libxml2-wasm';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
/** How much of an address a warning quotes. */
const MAX_SHOWN = 120;
/** How many references are listed. */
const MAX_LISTED = 5;

/** Whether an address leaves the file: it has a scheme other than data:, or is a network path. */
function isRemote(address: string): boolean {
  const a = address.trim();
  if (a.startsWith('//')) return true;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]{0,30}):/.exec(a)?.[1];
  return scheme !== undefined && scheme.toLowerCase() !== 'data';
}

/** The `href` pseudo-attribute of an xml-stylesheet instruction's data. */
function hrefOf(data: string): string | undefined {
  return /(?:^|\s)href\s*=\s*(?:"([^"]*)"|'([^']*)')/
    .exec(data.slice(0, 4096))
    ?.slice(1)
    .find((v) => v !== undefined);
}

/** Each reference in `doc` to a remote address, as a report names it (`xml-stylesheet href="https://…"`); empty when none. */
export function remoteReferences(doc: XmlDocument): string[] {
  const found: string[] = [];
  const show = (what: string, address: string) => `${what}="${address.trim().slice(0, MAX_SHOWN)}"`;
  for (const pi of doc.find('//processing-instruction("xml-stylesheet")')) {
    const href = hrefOf(pi.content);
    if (href !== undefined && isRemote(href)) found.push(show('xml-stylesheet href', href));
  }
  for (const attr of doc.find('//@xsi:schemaLocation | //@xsi:noNamespaceSchemaLocation', { xsi: XSI })) {
    const value = attr.content;
    const name = (attr as { name?: string }).name ?? 'schemaLocation';
    // schemaLocation is pairs of a namespace and its schema's address; noNamespaceSchemaLocation one address.
    const words = value.trim().split(/\s+/).slice(0, 64);
    const addresses = name === 'schemaLocation' ? words.filter((_, i) => i % 2 === 1) : words;
    const remote = addresses.find(isRemote);
    if (remote !== undefined) found.push(show(`xsi:${name}`, remote));
  }
  return found.slice(0, MAX_LISTED);
}
