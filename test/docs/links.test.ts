/**
 * Every relative link of the project's Markdown (README, CHANGELOG, docs/, clients/js/) reaches a file
 * that exists, and every `#anchor` a heading GitHub would make (its slug rules) or an explicit anchor.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, githubSlug, linksOf, ROOT } from './markdown.js';

const FILES = [
  'README.md',
  'CHANGELOG.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...fs
    .readdirSync(path.join(ROOT, 'clients/js'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `clients/js/${f}`),
];

/** The problem with one link, or null when it resolves. */
function problem(from: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // http(s), mailto: not this suite's
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = file === '' ? path.join(ROOT, from) : path.resolve(path.dirname(path.join(ROOT, from)), decodeURI(file));
  if (!resolved.startsWith(ROOT)) return `${target}: points outside the repository`;
  if (!fs.existsSync(resolved)) return `${target}: no file ${path.relative(ROOT, resolved)}`;
  if (anchor === undefined || anchor === '') return null;
  if (!resolved.endsWith('.md')) return null;
  const anchors = anchorsOf(fs.readFileSync(resolved, 'utf8'));
  return anchors.has(anchor) ? null : `${target}: no heading gives #${anchor} in ${path.relative(ROOT, resolved)}`;
}

describe('links in the Markdown', () => {
  it('GitHub slugs: lower case, punctuation dropped, spaces to dashes', () => {
    expect(githubSlug('Load balancer (deploy/nginx.conf)')).toBe('load-balancer-deploynginxconf');
    expect(githubSlug('Health, readiness, metrics, logs')).toBe('health-readiness-metrics-logs');
    expect(githubSlug('`POST /v1/render`')).toBe('post-v1render');
    expect(githubSlug('Upgrades and migrations')).toBe('upgrades-and-migrations');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n')]).toEqual(['a', 'a-1']);
  });

  it.each(FILES)('%s: every relative link and anchor resolves', (file) => {
    expect(fs.existsSync(path.join(ROOT, file)), `${file} exists`).toBe(true);
    const broken = linksOf(fs.readFileSync(path.join(ROOT, file), 'utf8'))
      .map(({ target, line }) => ({ line, why: problem(file, target) }))
      .filter((l) => l.why !== null)
      .map(({ line, why }) => `${file}:${line}: ${why}`);
    expect(broken, `broken links in ${file}`).toEqual([]);
  });

  // A section written twice is one fact in two places (they drift), and GitHub gives the second a -1
  // anchor, so the link check cannot see it.
  it.each(FILES)('%s: no heading appears twice', (file) => {
    const seen = new Map<string, number>();
    const twice: string[] = [];
    let fenced = false;
    for (const [i, line] of fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').entries()) {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      if (fenced || !/^#{1,6} /.test(line)) continue;
      const first = seen.get(line);
      if (first === undefined) seen.set(line, i + 1);
      else twice.push(`${file}:${i + 1}: "${line}" (first at line ${first})`);
    }
    expect(twice).toEqual([]);
  });
});
