/**
 * Which tag names the document scanner acts on where: the tags that keep Blink's charset pre-scan in the
 * head, the raw-text elements, and the few start tags that matter past the head.
 */
import { eqLower, lowerName } from './html-scan.js';

/** Start/end tags that keep Blink's charset pre-scan "in the head section". */
export const HEAD_TAGS = new Set(['script', 'noscript', 'style', 'link', 'meta', 'object', 'title', 'base']);

/** Elements whose content is raw text up to their end tag (script and textarea besides). */
export const RAWTEXT = new Set(['style', 'xmp', 'iframe', 'noembed', 'noframes']);

/** Whether the start tag name in bytes [s, e) is one the scanner acts on outside the head and foreign content. */
export function isSpecial(b: Buffer, s: number, e: number): boolean {
  switch (e - s) {
    case 3:
      return eqLower(b, s, e, 'svg') || eqLower(b, s, e, 'xmp');
    case 4:
      return eqLower(b, s, e, 'meta') || eqLower(b, s, e, 'link') || eqLower(b, s, e, 'base') || eqLower(b, s, e, 'math');
    case 5:
      return eqLower(b, s, e, 'title') || eqLower(b, s, e, 'style');
    case 6:
      return eqLower(b, s, e, 'script') || eqLower(b, s, e, 'iframe');
    case 7:
    case 8:
    case 9:
      return (
        RAWTEXT.has(lowerName(b, s, e)) ||
        eqLower(b, s, e, 'textarea') ||
        eqLower(b, s, e, 'template') ||
        eqLower(b, s, e, 'plaintext')
      );
    default:
      return false;
  }
}
