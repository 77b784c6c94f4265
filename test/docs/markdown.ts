/**
 * Reading the project's Markdown the way GitHub shows it: tables under a heading, heading anchors
 * (GitHub's slug rules), links. The drift suites (test/docs/*) check these against the code.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The repository's root (tests run from it, but say so once). */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** A file of the repository as text. */
export function readDoc(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

/** The text with fenced code blocks blanked (line count kept), so a `#` or link in code is not taken for one. */
export function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ''));
}

/** The cells of a table row: `| a | b |` → ['a', 'b']; a `\|` inside a cell is not a separator. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

/**
 * The first table after the heading whose text is `heading` (any level), as rows of cells, header
 * row first. Throws when the heading or its table is missing: the suites then say which.
 */
export function tableUnder(file: string, heading: string): string[][] {
  const lines = withoutFences(readDoc(file)).split('\n');
  const at = lines.findIndex((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '').trim() === heading);
  if (at < 0) throw new Error(`${file} has no heading "${heading}"`);
  let i = at + 1;
  while (i < lines.length && !lines[i].startsWith('|')) {
    if (/^#{1,6} /.test(lines[i])) throw new Error(`${file}: no table under "${heading}"`);
    i++;
  }
  const rows: string[][] = [];
  for (; i < lines.length && lines[i].startsWith('|'); i++) {
    if (/^\|[\s:|-]+\|$/.test(lines[i].trim())) continue; // the |---|---| line
    rows.push(cells(lines[i]));
  }
  if (rows.length === 0) throw new Error(`${file}: no table under "${heading}"`);
  return rows;
}

/** A cell's text without the backticks of inline code. */
export function plain(cell: string): string {
  return cell.replace(/`/g, '').trim();
}

/** The literal of a cell that is one inline-code span (`3000`), else undefined. */
export function codeLiteral(cell: string): string | undefined {
  return /^`([^`]*)`$/.exec(cell.trim())?.[1];
}

/**
 * GitHub's anchor for a heading: lower case, inline markup dropped, every character that is not a
 * letter, digit, space, `-` or `_` removed, spaces become `-`; a repeated slug gets `-1`, `-2`, ….
 */
export function githubSlug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_]{1,2}([^*_]+)[*_]{1,2}/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a Markdown file offers: its headings' slugs (duplicates numbered) and explicit `id`/`name` anchors. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of withoutFences(text).split('\n')) {
    const m = /^#{1,6} (.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = githubSlug(m[1]);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

/** The links of a Markdown file outside code: `[text](target)` with their line numbers. */
export function linksOf(text: string): Array<{ target: string; line: number }> {
  const found: Array<{ target: string; line: number }> = [];
  withoutFences(text)
    .split('\n')
    .forEach((line, i) => {
      // Inline code spans are not links either.
      const prose = line.replace(/`[^`]*`/g, '');
      for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) found.push({ target: m[1], line: i + 1 });
    });
  return found;
}
