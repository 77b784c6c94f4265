/**
 * What a document declares about the PDF it wants (docs/standards.md): `<meta name="pdf-profile">`,
 * `<meta name="factur-x">` and `<link rel="attachment">`. Read in an isolated world, where the
 * document's scripts cannot replace the DOM methods used here (they can change the DOM, which is the
 * document speaking for itself). Runs in the page: serialised with callExpression, so it refers to
 * nothing outside itself. Node checks every value again (declarations.ts).
 */

/** One `<link rel="attachment">`: its resolved address (empty when longer than allowed), title and type. */
export interface PageAttachment {
  href: string;
  /** The address's length, so an address left out for its size can be reported. */
  hrefLength: number;
  title: string;
  type: string;
}

/** The declarations as the page found them, capped in count and size. */
export interface PageDeclarations {
  profiles: string[];
  facturX: string[];
  attachments: PageAttachment[];
  /** Declarations past the caps, counted and left out. */
  dropped: number;
}

/** Caps applied in the page (and again in Node): values per kind, characters per value, characters per address. */
export interface DeclarationCaps {
  values: number;
  chars: number;
  hrefChars: number;
}

/**
 * Runs in the page (isolated world). Names and `rel` tokens compare ASCII case-insensitively, as
 * browsers do; an empty value is skipped.
 */
export function readDeclarations(caps: DeclarationCaps): PageDeclarations {
  const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const cut = (s: string | null) => (s ?? '').trim().slice(0, caps.chars);
  const out: PageDeclarations = { profiles: [], facturX: [], attachments: [], dropped: 0 };
  const push = <T>(list: T[], value: T) => {
    if (list.length < caps.values) list.push(value);
    else out.dropped += 1;
  };
  for (const meta of Array.from(document.getElementsByTagName('meta'))) {
    const name = lower((meta.getAttribute('name') ?? '').trim());
    const content = cut(meta.getAttribute('content'));
    if (content === '') continue;
    if (name === 'pdf-profile') push(out.profiles, content);
    else if (name === 'factur-x') push(out.facturX, content);
  }
  for (const link of Array.from(document.getElementsByTagName('link'))) {
    const rel = lower(link.getAttribute('rel') ?? '').split(/[\t\n\f\r ]+/);
    if (!rel.includes('attachment') || !link.hasAttribute('href')) continue;
    const href = link.href;
    push(out.attachments, {
      href: href.length <= caps.hrefChars ? href : '',
      hrefLength: href.length,
      title: cut(link.getAttribute('title')),
      type: cut(link.getAttribute('type')),
    });
  }
  return out;
}

/**
 * Runs in the page (isolated world), on one `pdf-profile` value as readDeclarations capped it: whether
 * it may name PDF/UA-1, so the page is walked for PDF/UA gaps only then. Looser than Node's parse
 * (declarations.ts ignores case and spaces the same way), so no PDF/UA-1 declaration is missed.
 */
export function mayDeclareUa(value: string): boolean {
  return /UA/.test(value.replace(/\s+/g, '').toUpperCase());
}

/**
 * Runs in the page (main world, in the round trip that prepares the document): whether anything in
 * it may be a declaration. A document that answers false has none to read; one whose scripts make it
 * answer otherwise only opts itself out of (or into a read of) its own declarations.
 */
export function mentionsDeclarations(): boolean {
  try {
    return document.querySelector('meta[name*="pdf-profile" i], meta[name*="factur-x" i], link[rel*="attachment" i]') !== null;
  } catch {
    return true;
  }
}
