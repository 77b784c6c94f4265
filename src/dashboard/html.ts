/** Markup that is already safe to send: produced by `html` or explicitly marked with `raw`. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for use in element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => {
    const escaped = ESCAPES[c];
    // The pattern matches exactly the characters ESCAPES has entries for.
    if (escaped === undefined) throw new Error(`escapeHtml: no escape for ${JSON.stringify(c)}`);
    return escaped;
  });
}

/** A value an `html` template may interpolate. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * Tagged template that escapes every interpolated value unless it is SafeHtml (nested templates),
 * so user-supplied text can only ever render as text. Arrays are joined; null/undefined/false vanish.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  // A template has one more string than values: string i follows value i - 1.
  return new SafeHtml(strings.reduce((out, s, i) => out + render(values[i - 1]) + s));
}

/** Marks trusted markup (constants only, never user input) as safe. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
