/**
 * Turns a third-party template as published into the document a render gets: its placeholders filled
 * (the `{{…}}` of Mustache/Handlebars email templates, the `{…}` and `data-iterate` rows of Invoicebus),
 * its local stylesheets inlined, and every resource it would fetch from elsewhere (web fonts, CDN
 * stylesheets and scripts, files the fixture does not hold; a logo becomes a grey box) left out, so that a render
 * never leaves the machine. A placeholder without a value throws: the document would print "{{total}}".
 */
import fs from 'node:fs';
import path from 'node:path';

/** A value for `{{name}}`, a list for `{{#each name}}`, a flag for `{{#if name}}`. */
export type TemplateValue = string | boolean | Array<Record<string, string>>;

/** HTML-escapes text put into a template. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function placeholderValue(data: Record<string, TemplateValue>, name: string, where: string): string {
  const key = name.trim().replace(/^this\./, '');
  const value = data[key];
  if (typeof value !== 'string') throw new Error(`${where}: no value for {{${name.trim()}}}`);
  return escapeHtml(value);
}

/** Fills Mustache/Handlebars placeholders: `{{name}}`, `{{this.name}}`, `{{#each list}}…{{/each}}`, `{{#if flag}}…{{/if}}`. */
export function fillMustache(template: string, data: Record<string, TemplateValue>, where: string): string {
  const withLists = template.replace(/\{\{#each (\w+)\}\}([\s\S]*?)\{\{\/each\}\}/g, (_, name: string, body: string) => {
    const list = data[name];
    if (!Array.isArray(list)) throw new Error(`${where}: no list for {{#each ${name}}}`);
    return list
      .map((item) => body.replace(/\{\{([^#/}][^}]*)\}\}/g, (_m, key: string) => placeholderValue(item, key, where)))
      .join('');
  });
  const withFlags = withLists.replace(/\{\{#if (\w+)\}\}([\s\S]*?)\{\{\/if\}\}/g, (_, name: string, body: string) =>
    data[name] ? body : '',
  );
  return withFlags.replace(/\{\{([^#/}][^}]*)\}\}/g, (_, key: string) => placeholderValue(data, key, where));
}

/** Fills Invoicebus placeholders: each `<tr data-iterate="x">` once per row of `rows[x]`, then every `{name}`. */
export function fillBraces(
  template: string,
  data: Record<string, string>,
  rows: Record<string, Array<Record<string, string>>>,
  where: string,
): string {
  const fill = (text: string, values: Record<string, string>) =>
    text.replace(/\{([a-z_0-9]+)\}/g, (_, key: string) => {
      const value = values[key] ?? data[key];
      if (value === undefined) throw new Error(`${where}: no value for {${key}}`);
      return value;
    });
  const iterated = template.replace(/<tr data-iterate="(\w+)">[\s\S]*?<\/tr>/g, (row, name: string) =>
    (rows[name] ?? []).map((values) => fill(row, values)).join(''),
  );
  return fill(iterated, {});
}

/** Reads Invoicebus's `data.txt` (`[{key}]` then its value, up to the next blank line). */
export function invoicebusData(text: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const m of text.matchAll(/^\[\{(\w+)\}\]\n((?:.+\n?)*)/gm)) data[m[1] as string] = (m[2] ?? '').trim();
  return data;
}

const REMOTE = /^(?:https?:)?\/\//i;

/** Whether `ref` names a file the fixture folder holds (a relative address, not a data: URL). */
function localFile(dir: string, ref: string): string | null {
  if (REMOTE.test(ref) || /^[a-z]+:/i.test(ref)) return null;
  const file = path.join(dir, ref.split(/[?#]/)[0] ?? '');
  return file.startsWith(dir) && fs.existsSync(file) && fs.statSync(file).isFile() ? file : null;
}

/** A stylesheet without what it would fetch: `@import`s and web fonts (the fixtures hold neither). */
function cssWithoutFetches(css: string): string {
  return css
    .replace(/@import\s+(?:url\()?[^;]*;/gi, '')
    .replace(/@font-face\s*\{[^}]*\}/gi, '')
    .replace(/url\(\s*['"]?(?!data:)[^)'"]*['"]?\s*\)/gi, 'none');
}

/** What an image the fixture does not hold prints instead (a grey logo-sized box), so that it is still an image in the PDF. */
const PLACEHOLDER_IMAGE = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#999"/></svg>')}`;

/**
 * The document with its local stylesheets inlined and nothing left that a browser would fetch: other
 * `<link>`s and scripts with a `src` are taken out, and an image prints a grey box instead of what it would fetch.
 */
export function selfContained(html: string, dir: string): string {
  const out = html
    .replace(/<link\b[^>]*>/gi, (tag) => {
      const href = /\bhref\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1] ?? '';
      const file = /\brel\s*=\s*["']?stylesheet/i.test(tag) ? localFile(dir, href) : null;
      return file ? `<style>${cssWithoutFetches(fs.readFileSync(file, 'utf8'))}</style>` : '';
    })
    .replace(/<script\b[^>]*\bsrc\s*=[^>]*>\s*<\/script>/gi, '')
    .replace(/(<img\b[^>]*?\s)src\s*=\s*["']([^"']*)["']/gi, (tag, start: string, src: string) =>
      src.startsWith('data:') ? tag : `${start}src="${PLACEHOLDER_IMAGE}"`,
    )
    .replace(
      /<style\b([^>]*)>([\s\S]*?)<\/style>/gi,
      (_, attrs: string, css: string) => `<style${attrs}>${cssWithoutFetches(css)}</style>`,
    )
    .replace(/(\sstyle\s*=\s*")([^"]*)"/gi, (_, start: string, css: string) => `${start}${cssWithoutFetches(css)}"`);
  const left = fetchesIn(out);
  if (left.length > 0) throw new Error(`still fetches ${left.join(', ')}`);
  return out;
}

/** What a document would still fetch: `src` attributes, stylesheet links and CSS `url()`s that are not data: URLs. */
export function fetchesIn(html: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/\s(?:src|srcset|background)\s*=\s*["']([^"']+)["']/gi))
    if (!m[1]?.startsWith('data:')) found.push(m[1] as string);
  for (const m of html.matchAll(/<link\b[^>]*>/gi)) if (!/rel\s*=\s*["']?attachment/i.test(m[0])) found.push(m[0]);
  for (const m of html.matchAll(/url\(\s*['"]?([^)'"]*)/gi)) if (!m[1]?.startsWith('data:')) found.push(m[1] as string);
  for (const m of html.matchAll(/@import\b[^;]*/gi)) found.push(m[0]);
  return found;
}
