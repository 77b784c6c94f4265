/**
 * The Node side of the main-world read (document-read-page.ts): every value that crossed from the page
 * is checked for type, count and size here, and the document's own words are cleaned with the function
 * readDocumentInfo uses in an isolated world (cleanInfoText), so both reads give the same Info.
 */
import type { CrossReferenceUse } from './cross-references.js';
import { DECLARATION_CAPS, metaDeclarations } from './declarations.js';
import type { PageDeclarations } from './declarations-page.js';
import { cleanInfoText as clean, type DocumentInfo } from './document-info.js';
import type { ReadLimits } from './document-read-page.js';

/** The longest property of the Info dictionary (cleanInfoText's cap). */
const INFO_CHARS = 4096;

/**
 * The page's caps. Values are cut after four times the Info length, so whitespace that collapses still
 * leaves the whole of a 4,096-character property; a stylesheet address longer than `hrefChars` (a data:
 * URL) was never a request the cross-reference passes could read back, so the page leaves it out.
 */
export const READ_LIMITS: ReadLimits = {
  metas: 256,
  nodes: 1000,
  chars: 4 * INFO_CHARS,
  titleChars: 4 * INFO_CHARS,
  hrefChars: 8192,
};

/** The read, checked: the document's Info, its cross-reference use, and whether more must be read in an isolated world. */
export interface CheckedRead {
  info: DocumentInfo;
  xref?: CrossReferenceUse;
  declares: boolean;
  /**
   * What the document declares, as readDeclarations would find it in the isolated world: present when the
   * read holds every meta whole and the document links no attachment, so nothing else is to be read there.
   */
  declarations?: PageDeclarations;
  fontsFailed: boolean;
  resourcesBroken: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

/** The entries of a page list that pass `check`, at most `max` looked at. */
function entries<T>(list: unknown, max: number, check: (entry: unknown) => T | undefined): T[] {
  if (!isRecord(list) || !Number.isSafeInteger(list.n)) return [];
  const out: T[] = [];
  const n = Math.min(list.n as number, max);
  for (let i = 0; i < n; i++) {
    const entry = check(list[i]);
    if (entry !== undefined) out.push(entry);
  }
  return out;
}

const index = (value: unknown, limits: ReadLimits): number | undefined =>
  Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < limits.nodes ? (value as number) : undefined;

/** ASCII case-insensitive, as browsers compare attribute names and `rel` tokens. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** Checks what the page returned; undefined when it is not a read at all (the caller reads in an isolated world). */
export function checkedRead(value: unknown, limits: ReadLimits = READ_LIMITS): CheckedRead | undefined {
  if (!isRecord(value)) return undefined;
  let whole = true;
  const metas = entries(value.metas, limits.metas, (m) => {
    if (!isRecord(m) || typeof m.name !== 'string' || typeof m.content !== 'string') return undefined;
    // A value as long as the page's cut may have been cut: a declaration in it is then read in the isolated world.
    whole &&= m.name.length < 64 && m.content.length < limits.chars;
    return { name: asciiLower(m.name.slice(0, 64).trim()), content: m.content.slice(0, limits.chars) };
  });
  const meta = (name: string): string | undefined => {
    for (const m of metas) {
      const content = m.name === name ? clean(m.content) : undefined;
      if (content !== undefined) return content;
    }
    return undefined;
  };
  const info: DocumentInfo = {
    title: clean(typeof value.title === 'string' ? value.title.slice(0, limits.titleChars) : undefined),
    author: meta('author'),
    subject: meta('description'),
    keywords: meta('keywords'),
    lang: clean(typeof value.lang === 'string' ? value.lang.slice(0, limits.chars) : undefined),
  };
  const styles = entries(value.styles, limits.nodes, (s) => index(s, limits));
  const links = entries(value.links, limits.nodes, (l) => {
    if (!isRecord(l) || typeof l.href !== 'string' || l.href === '' || l.href.length > limits.hrefChars) return undefined;
    const node = index(l.node, limits);
    return node === undefined ? undefined : { node, href: l.href };
  });
  // Anything but false reads as "maybe": the isolated world then finds out for itself.
  const declares = value.declares !== false;
  const read: CheckedRead = {
    info,
    xref: styles.length > 0 || links.length > 0 ? { styles, links } : undefined,
    declares,
    fontsFailed: value.fontsFailed !== false,
    resourcesBroken: value.resourcesBroken !== false,
  };
  if (declares && value.attaches === false && whole && value.metaCount === metas.length)
    read.declarations = metaDeclarations(metas, DECLARATION_CAPS);
  return read;
}
