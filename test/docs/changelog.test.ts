/** CHANGELOG.md names every store migration, so an operator sees what an upgrade will change. */
import { describe, expect, it } from 'vitest';
import { readDoc } from './markdown.js';

describe('CHANGELOG.md', () => {
  it('lists every migration of src/store/migrations.ts', () => {
    const names = [...readDoc('src/store/migrations.ts').matchAll(/^ {2}'(\d{4}[a-z]?_[a-z0-9_]+)': /gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThanOrEqual(6);
    const changelog = readDoc('CHANGELOG.md');
    const missing = names.filter((name) => !changelog.includes(`\`${name}\``));
    expect(missing, 'migrations in src/store/migrations.ts that CHANGELOG.md does not list').toEqual([]);
  });
});
