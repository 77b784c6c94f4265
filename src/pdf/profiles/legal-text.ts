/**
 * Text a document hands over (its title, author, keywords, a link's words) as Pageworks may write it into
 * XMP and the Info dictionary: only characters XML 1.0 allows (PDF/A 6.6.2.1 reads the XMP as XML), so
 * no C0 control but tab, line feed and carriage return, no U+FFFE or U+FFFF, no half of a surrogate pair;
 * C1 controls and the noncharacters U+FDD0–U+FDEF, which XML discourages, go too. Info and XMP get the
 * same cleaned value, so they still say the same thing (PDF/A 6.6.3).
 */

const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `value` without the characters XMP may not hold; undefined stays undefined. */
export function legalText<T extends string | undefined>(value: T): T {
  return (value === undefined ? value : value.replace(NOT_XML, '')) as T;
}
