/**
 * The XMP metadata packet of a profiled PDF: the identification of each claimed part (pdfaid, pdfuaid),
 * the document properties equal to the Info dictionary's (PDF/A 6.6.3 compares them), and the extension
 * schemas, each described under `pdfaExtension:schemas` when PDF/A is claimed (PDF/A 6.6.2.3: a schema
 * PDF/A does not predefine must describe itself).
 */
import type { PdfProperties } from '../pdf-info.js';
import { legalText } from './legal-text.js';
import type { XmpExtensionSchema } from './types.js';

/** What the packet says. */
export interface XmpContent extends PdfProperties {
  pdfa?: { part: 2 | 3; conformance: 'B' | 'U' };
  pdfua?: boolean;
  extensions: XmpExtensionSchema[];
}

/** The pdfuaid schema as PDF/A needs it described (it is not one of PDF/A's predefined schemas). */
const PDFUA_SCHEMA: Omit<XmpExtensionSchema, 'properties'> & {
  properties: Array<Omit<XmpExtensionSchema['properties'][number], 'value'>>;
} = {
  namespaceUri: 'http://www.aiim.org/pdfua/ns/id/',
  prefix: 'pdfuaid',
  schema: 'PDF/UA Universal Accessibility Schema',
  properties: [
    {
      name: 'part',
      valueType: 'Integer',
      category: 'internal',
      description: 'Indicates, which part of ISO 14289 standard is followed',
    },
  ],
};

function esc(value: string): string {
  return legalText(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The date as the Info dictionary writes it (seconds, UTC), in XMP's form. */
export function xmpDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

function alt(value: string): string {
  return `<rdf:Alt><rdf:li xml:lang="x-default">${esc(value)}</rdf:li></rdf:Alt>`;
}

function describe(schema: typeof PDFUA_SCHEMA): string {
  const properties = schema.properties
    .map(
      (p) =>
        `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${esc(p.name)}</pdfaProperty:name><pdfaProperty:valueType>${esc(p.valueType)}</pdfaProperty:valueType><pdfaProperty:category>${p.category}</pdfaProperty:category><pdfaProperty:description>${esc(p.description)}</pdfaProperty:description></rdf:li>`,
    )
    .join('');
  return `<rdf:li rdf:parseType="Resource"><pdfaSchema:schema>${esc(schema.schema)}</pdfaSchema:schema><pdfaSchema:namespaceURI>${esc(schema.namespaceUri)}</pdfaSchema:namespaceURI><pdfaSchema:prefix>${esc(schema.prefix)}</pdfaSchema:prefix><pdfaSchema:property><rdf:Seq>${properties}</rdf:Seq></pdfaSchema:property></rdf:li>`;
}

/** The XMP packet, UTF-8. */
export function xmpPacket(content: XmpContent): Buffer {
  const lines: string[] = [];
  const add = (ns: string, body: string): void => {
    lines.push(`<rdf:Description rdf:about="" ${ns}>${body}</rdf:Description>`);
  };
  const date = xmpDate(content.date);
  let dc = '';
  if (content.title) dc += `<dc:title>${alt(content.title)}</dc:title>`;
  if (content.author) dc += `<dc:creator><rdf:Seq><rdf:li>${esc(content.author)}</rdf:li></rdf:Seq></dc:creator>`;
  if (content.subject) dc += `<dc:description>${alt(content.subject)}</dc:description>`;
  if (content.lang) dc += `<dc:language><rdf:Bag><rdf:li>${esc(content.lang)}</rdf:li></rdf:Bag></dc:language>`;
  dc += '<dc:format>application/pdf</dc:format>';
  add('xmlns:dc="http://purl.org/dc/elements/1.1/"', dc);
  add(
    'xmlns:xmp="http://ns.adobe.com/xap/1.0/"',
    `<xmp:CreateDate>${date}</xmp:CreateDate><xmp:ModifyDate>${date}</xmp:ModifyDate><xmp:MetadataDate>${date}</xmp:MetadataDate><xmp:CreatorTool>${esc(content.creator)}</xmp:CreatorTool>`,
  );
  add(
    'xmlns:pdf="http://ns.adobe.com/pdf/1.3/"',
    `<pdf:Producer>${esc(content.producer)}</pdf:Producer>${content.keywords ? `<pdf:Keywords>${esc(content.keywords)}</pdf:Keywords>` : ''}`,
  );
  if (content.pdfa)
    add(
      'xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"',
      `<pdfaid:part>${content.pdfa.part}</pdfaid:part><pdfaid:conformance>${content.pdfa.conformance}</pdfaid:conformance>`,
    );
  if (content.pdfua) add(`xmlns:pdfuaid="${PDFUA_SCHEMA.namespaceUri}"`, '<pdfuaid:part>1</pdfuaid:part>');
  for (const ext of content.extensions) {
    const values = ext.properties.map((p) => `<${ext.prefix}:${p.name}>${esc(p.value)}</${ext.prefix}:${p.name}>`).join('');
    add(`xmlns:${ext.prefix}="${esc(ext.namespaceUri)}"`, values);
  }
  const described = [...(content.pdfua ? [PDFUA_SCHEMA] : []), ...content.extensions];
  if (content.pdfa && described.length > 0)
    add(
      'xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#"',
      `<pdfaExtension:schemas><rdf:Bag>${described.map(describe).join('')}</rdf:Bag></pdfaExtension:schemas>`,
    );
  const packet = `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n${lines.join('\n')}\n</rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>`;
  return Buffer.from(packet, 'utf8');
}
