/**
 * The one decision of the HTML tree builder that can take elements out of the document after the fact:
 * a `<frameset>` start tag. Before the body it takes over the document; in the body it does so only while
 * the builder's frameset-ok flag holds, and then removes the body with everything in it. Either way no
 * later `<title>`, `<meta>`, `<link>` or `<base>` becomes an element. Real pages clear the flag early in
 * the body (text, an image, a table …), so this is bookkeeping of a few tags and text runs per page.
 *
 * Blink's rules (html_tree_builder.cc), which differ from the specification in one point: creating the
 * body implicitly (text, or a tag that cannot stay before the body) sets the flag again, even after a
 * `<template>` in the head cleared it. The oracle tests hold this against Chromium.
 */
import { decodeHTML } from 'entities';

/** Start tags that stay before the body in "in head" mode; any other starts the body. */
const IN_HEAD = new Set([
  'html',
  'head',
  'base',
  'basefont',
  'bgsound',
  'link',
  'meta',
  'noframes',
  'noscript',
  'script',
  'style',
  'template',
  'title',
]);
/** Start tags that clear frameset-ok (`input` only when it is not hidden). */
const CLEARS = new Set(
  'applet area body br button dd dt embed hr iframe image img input keygen li listing marquee object pre select table template textarea wbr xmp'.split(
    ' ',
  ),
);

/** What a run of text does to the tree builder: one of BLANK, INERT, TEXT. */
export type TextKind = 0 | 1 | 2;
/** Only ASCII whitespace: nothing. */
export const BLANK = 0;
/** Whitespace and U+FFFD (a reference such as `&#0;`): starts the body, leaves frameset-ok alone. */
export const INERT = 1;
/** Anything else: starts the body and clears frameset-ok. */
export const TEXT = 2;

function isWsByte(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

/** NUL bytes never reach the tree builder as text: Blink's input stream drops them (in SVG/MathML they become U+FFFD). */
function kindOfDecoded(text: string): TextKind {
  if (/^[\t\n\f\r \0]*$/.test(text)) return BLANK;
  return /^[\t\n\f\r \0\uFFFD]*$/.test(text) ? INERT : TEXT;
}

/**
 * The kind of the text in bytes [s, e); `references` is false for a CDATA section, where `&` is literal.
 * Character references can stand for whitespace (`&#32;`), so text with `&` in it is decoded to tell.
 */
export function textKind(b: Buffer, s: number, e: number, references: boolean): TextKind {
  for (let i = s; i < e; i++) {
    const c = b[i];
    if (isWsByte(c) || c === 0) continue;
    if (c === 0x26 && references) return kindOfDecoded(decodeHTML(b.toString('latin1', s, e)));
    return TEXT;
  }
  return BLANK;
}

/**
 * Whether text [s, e) could still turn out to be blank or inert once more bytes arrive: it has a `&` (a
 * character reference that may be cut at `e`) and nothing before it that is text already.
 */
export function textUndecided(b: Buffer, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    const c = b[i];
    if (c === 0x26) return true;
    if (!isWsByte(c) && c !== 0) return false;
  }
  return false;
}

/** Where the body begins and whether a `<frameset>` would still take over; positions are document offsets. */
export class FramesetWatch {
  /** The tree builder's frameset-ok flag. */
  ok = true;
  /** Where the body element began, -1 before. */
  bodyAt = -1;
  /** A `<frameset>` took over the document. */
  taken = false;
  /** `</head>` was seen before the body: the "after head" insertion mode. */
  private afterHead = false;

  /**
   * Whether a `<frameset>` could still take over, so the scanner must report text and tags: a field, not a
   * getter, because the scanner reads it for every tag of the page.
   */
  open = true;

  private update(): void {
    this.open = !this.taken && (this.ok || this.bodyAt < 0);
  }

  private startBody(at: number): void {
    this.bodyAt = at;
    this.ok = true;
  }

  /** Text at `at` (`inTemplate`: inside template contents, which never start the body). */
  text(kind: TextKind, at: number, inTemplate: boolean): void {
    if (kind === BLANK) return;
    if (this.bodyAt < 0 && !inTemplate) this.startBody(at);
    if (kind === TEXT) this.ok = false;
    this.update();
  }

  /**
   * An HTML start tag `name` (lower case) at `at`; `hiddenInput` when it is an `input` with `type=hidden`.
   * Returns true when it is a `<frameset>`, which then took over (`taken`) or was ignored.
   */
  startTag(name: string, at: number, inTemplate: boolean, hiddenInput: boolean): boolean {
    if (name === 'frameset') {
      if (!inTemplate && (this.bodyAt < 0 || this.ok)) {
        this.taken = true;
        this.ok = false;
        this.update();
      }
      return true;
    }
    if (this.bodyAt < 0 && !inTemplate && (!IN_HEAD.has(name) || (this.afterHead && name === 'noscript'))) this.startBody(at);
    if (CLEARS.has(name) && !hiddenInput) this.ok = false;
    this.update();
    return false;
  }

  /** An end tag `name` (lower case) at `at` that reaches the HTML rules (in SVG/MathML only `</br>` does). */
  endTag(name: string, at: number, inTemplate: boolean): void {
    if (inTemplate || this.bodyAt >= 0) {
      // </br> is a <br> start tag to the tree builder.
      if (name === 'br') this.ok = false;
    } else if (name === 'head') this.afterHead = true;
    else if (name === 'body' || name === 'html' || name === 'br') {
      this.startBody(at);
      if (name === 'br') this.ok = false;
    }
    this.update();
  }
}
