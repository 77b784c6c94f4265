/**
 * One set of shell variable names for keys, addresses and the webhook secret across the README, docs/
 * and the dashboard's Get started page: a reader who exported PAGEWORKS_RENDER_KEY from one page can
 * paste the next page's example as it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { docsPage } from '../../src/dashboard/views/docs-view.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', 'clients/js/README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)];
const dashboard = docsPage(
  { email: 'a@example.com', csrfToken: 'x' },
  { render: 'http://127.0.0.1:3001', metadata: 'http://127.0.0.1:3002' },
);

/** The variable names a text uses for keys, service addresses and the webhook secret. */
function names(text: string): Set<string> {
  return new Set([...text.matchAll(/\b([A-Z][A-Z0-9_]*_(?:KEY|SECRET|URL))\b/g)].map((m) => m[1] as string));
}

describe('variable names in the docs and the dashboard', () => {
  it('keys, addresses and the webhook secret are PAGEWORKS_… everywhere', () => {
    const used = new Map<string, string[]>();
    for (const [where, text] of [
      ...DOCS.map((d) => [d, fs.readFileSync(path.join(ROOT, d), 'utf8')]),
      ['dashboard /docs', dashboard],
    ]) {
      for (const name of names(text as string)) used.set(name, [...(used.get(name) ?? []), where as string]);
    }
    // The server's own settings (DATABASE_URL, REDIS_URL, …) are configuration, and WEBHOOK_URL is the reader's receiver.
    const ours = [...used.keys()].filter((n) => /^(?:PAGEWORKS_)?(?:(?:RENDER|METADATA)_(?:KEY|URL)|WEBHOOK_SECRET)$/.test(n));
    expect(ours.filter((n) => !n.startsWith('PAGEWORKS_')).map((n) => `${n} in ${used.get(n)?.join(', ')}`)).toEqual([]);
    expect(dashboard).toContain('PAGEWORKS_RENDER_KEY');
    expect(dashboard).toContain('PAGEWORKS_METADATA_KEY');
    expect(used.get('PAGEWORKS_RENDER_KEY')).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/client.md']));
  });
});
