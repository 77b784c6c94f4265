/**
 * A document's declarations (declarations-page.ts) as Node takes them: every value checked for type,
 * count and size as it crosses from Chromium, the profile names and Factur-X level parsed, and what
 * cannot be honoured (an unknown profile, two PDF/A levels) said in the report's words.
 */
import { type FacturXLevel, parseFacturXLevel } from '../../pdf/factur-x/levels.js';
import { PDF_PROFILES, type PdfProfile } from '../../pdf/profiles/types.js';
import type { ReportEntry } from '../../report/report.js';
import { conformanceEntry } from '../report/report-words.js';
import type { DeclarationCaps, PageDeclarations } from './declarations-page.js';

/** Attachments one document may embed, and bytes each may have. */
export const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;

/** What the page may hand over: a few values of each kind, short, and addresses long enough for a data: attachment. */
export const DECLARATION_CAPS: DeclarationCaps = {
  values: MAX_ATTACHMENTS,
  chars: 200,
  hrefChars: Math.ceil((MAX_ATTACHMENT_BYTES * 4) / 3) + 300,
};

/**
 * The declarations in a document's metas (names ASCII-lowercased and trimmed, contents whole), found as
 * readDeclarations finds them in the page: values trimmed and cut, empty ones skipped, at most
 * `caps.values` of each kind and the rest counted. A document without attachment links declares no more.
 */
export function metaDeclarations(
  metas: ReadonlyArray<{ name: string; content: string }>,
  caps: DeclarationCaps,
): PageDeclarations {
  const out: PageDeclarations = { profiles: [], facturX: [], attachments: [], dropped: 0 };
  for (const { name, content } of metas) {
    const list = name === 'pdf-profile' ? out.profiles : name === 'factur-x' ? out.facturX : undefined;
    const value = content.trim().slice(0, caps.chars);
    if (!list || value === '') continue;
    if (list.length < caps.values) list.push(value);
    else out.dropped += 1;
  }
  return out;
}

/** One attachment to fetch and embed: its address (empty when too long to take) and the name and type it is embedded with. */
export interface DeclaredAttachment {
  url: string;
  /** The length of the address as the page gave it. */
  urlLength: number;
  name: string;
  type: string;
}

/** What the document declared, ready to act on, with the report entries for what it cannot have. */
export interface Declarations {
  profiles: PdfProfile[];
  facturX: FacturXLevel | null;
  attachments: DeclaredAttachment[];
  entries: ReportEntry[];
}

const str = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const strings = (v: unknown): string[] =>
  Array.isArray(v)
    ? v
        .slice(0, DECLARATION_CAPS.values)
        .map((s) => str(s, DECLARATION_CAPS.chars))
        .filter(Boolean)
    : [];

/**
 * Bidirectional controls (marks, embeddings, overrides, isolates, the Arabic letter mark): in a name they
 * make `‮fdp.exe` show as `exe.pdf`, so a name loses them.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The name an attachment is embedded as: its title, else the last segment of its path; no path separators,
 * control or bidirectional characters, and never `.` or `..` (a reader saving it would name a folder).
 */
function fileName(title: string, url: string): string {
  let name = title;
  if (name === '' && /^https?:/i.test(url)) {
    try {
      name = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).pop() ?? '');
    } catch {
      name = '';
    }
  }
  const clean = name
    .replace(BIDI_CONTROLS, '')
    .replace(/[\u0000-\u001f\u007f-\u009f/\\]+/g, '_')
    .trim()
    .slice(0, 100);
  return clean === '' || /^\.+$/.test(clean) ? 'attachment' : clean;
}

/** Every name once: a repeat gets ` (2)`, ` (3)`… before its extension. */
function unique(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    let candidate = name;
    for (let n = 2; seen.has(candidate); n++) candidate = name.replace(/(\.[^.]*)?$/, (ext) => ` (${n})${ext}`);
    seen.add(candidate);
    return candidate;
  });
}

/** Parses one `pdf-profile` value, ignoring case and spaces (`pdf/a-3B` is PDF/A-3b). */
function parseProfile(text: string): PdfProfile | null {
  const key = text.replace(/\s+/g, '').toUpperCase();
  return PDF_PROFILES.find((p) => p.toUpperCase() === key) ?? null;
}

/** Checks and parses what the page answered; null when it is not the expected shape at all. */
export function checkedDeclarations(value: unknown): Declarations | null {
  if (typeof value !== 'object' || value === null) return null;
  const page = value as Partial<Record<keyof PageDeclarations, unknown>>;
  const entries: ReportEntry[] = [];
  const profiles: PdfProfile[] = [];
  const meta = 'meta[name="pdf-profile"]';
  for (const text of strings(page.profiles).flatMap((v) => v.split(','))) {
    const name = text.trim();
    if (name === '') continue;
    const profile = parseProfile(name);
    const partOfA = profile?.startsWith('PDF/A') ? profiles.find((p) => p.startsWith('PDF/A')) : undefined;
    if (profile === null) {
      entries.push(
        conformanceEntry({
          profile: name,
          clause: 'pdf-profile',
          element: meta,
          message: `"${name.slice(0, 60)}" is not a profile Pageworks makes (${PDF_PROFILES.join(', ')}): it was left out`,
        }),
      );
    } else if (partOfA && partOfA !== profile) {
      entries.push(
        conformanceEntry({
          profile,
          clause: 'pdf-profile',
          element: meta,
          message: `A PDF meets one PDF/A level: ${partOfA} was declared first, so ${profile} was left out`,
        }),
      );
    } else if (!profiles.includes(profile)) profiles.push(profile);
  }
  let facturX: FacturXLevel | null = null;
  const [level] = strings(page.facturX);
  if (level !== undefined) {
    facturX = parseFacturXLevel(level);
    if (facturX === null) {
      entries.push(
        conformanceEntry({
          profile: 'Factur-X',
          clause: 'factur-x',
          element: 'meta[name="factur-x"]',
          message: `"${level.slice(0, 60)}" is not a Factur-X level (MINIMUM, BASIC WL, BASIC, EN 16931, EXTENDED): the PDF does not claim Factur-X`,
        }),
      );
    }
  }
  const links = Array.isArray(page.attachments) ? page.attachments.slice(0, MAX_ATTACHMENTS) : [];
  const found = links.map((a) => {
    const link = (a ?? {}) as Record<string, unknown>;
    const url = str(link.href, DECLARATION_CAPS.hrefChars);
    const length = Number(link.hrefLength);
    return {
      url,
      urlLength: Number.isSafeInteger(length) && length > 0 ? length : url.length,
      title: str(link.title, DECLARATION_CAPS.chars),
      type: str(link.type, DECLARATION_CAPS.chars),
    };
  });
  const names = unique(found.map((a) => fileName(a.title, a.url)));
  const attachments = found.map((a, i) => ({ url: a.url, urlLength: a.urlLength, name: names[i], type: a.type }));
  const dropped = Number(page.dropped);
  if (Number.isSafeInteger(dropped) && dropped > 0) {
    entries.push(
      conformanceEntry({
        profile: 'declarations',
        clause: 'count',
        element: 'head',
        message: `${dropped} more declarations (pdf-profile, factur-x, attachments) than a document may make (${MAX_ATTACHMENTS} of each) were left out`,
      }),
    );
  }
  return { profiles, facturX, attachments, entries };
}
