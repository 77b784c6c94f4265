/**
 * Whether a language tag is well-formed BCP 47 (RFC 5646 section 2.1, the ABNF, case-insensitive): PDF/UA
 * asks for a language identifier in every /Lang (veraPDF 7.2-29 and its kin), and `en_US`, a tag with a
 * space or a quote, or an empty one is none. Well-formed, not valid: a tag need not be in the registry.
 */

const LANGTAG =
  '(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4}|[a-z]{5,8})' + // language, extlang
  '(?:-[a-z]{4})?' + // script
  '(?:-(?:[a-z]{2}|[0-9]{3}))?' + // region
  '(?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*' + // variants
  '(?:-[0-9a-wyz](?:-[a-z0-9]{2,8})+)*' + // extensions
  '(?:-x(?:-[a-z0-9]{1,8})+)?'; // private use
const PRIVATE_USE = 'x(?:-[a-z0-9]{1,8})+';
const GRANDFATHERED =
  'en-GB-oed|i-ami|i-bnn|i-default|i-enochian|i-hak|i-klingon|i-lux|i-mingo|i-navajo|i-pwn|i-tao|i-tay|i-tsu|' +
  'sgn-BE-FR|sgn-BE-NL|sgn-CH-DE|art-lojban|cel-gaulish|no-bok|no-nyn|zh-guoyu|zh-hakka|zh-min|zh-min-nan|zh-xiang';
const BCP47 = new RegExp(`^(?:${LANGTAG}|${PRIVATE_USE}|${GRANDFATHERED})$`, 'i');

/** Whether `tag` is a well-formed BCP 47 language tag. */
export function isLanguageTag(tag: string): boolean {
  return tag.length <= 256 && BCP47.test(tag);
}
