/**
 * The CLI refuses control and invisible formatting characters in the names it is given (exit 2, one
 * line on stderr), and `keys list` never writes such a character to the terminal, not even for a row
 * stored before the rule.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { runPageworks } from '../helpers/cli.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-cli-text-'));
// Anything a terminal could act on: C0 (but the line feed that ends a line) and C1 controls, format characters.
const ACTING = /[\p{Cf}\u0000-\u0009\u000b-\u001f\u007f-\u009f]/u;
const LEGACY = 'prod\u009b2J\u202eevil\u001b[31m\u200b';

/** `pageworks …` on this file's embedded store. */
function pageworks(args: string[]) {
  return runPageworks(dataDir, args);
}

beforeAll(async () => {
  // A key whose name predates the rule, written straight into the store.
  const store = await openSqliteStore(dataDir);
  await store.createAccount({ id: 'acc_legacy', email: 'legacy@example.com', passwordHash: null, createdAt: Date.now() });
  await store.insertKey({
    id: 'key_legacy',
    accountId: 'acc_legacy',
    service: 'render',
    keyHash: 'e'.repeat(64),
    displayPrefix: 'pwr_live_eeee',
    name: LEGACY,
    createdAt: Date.now(),
  });
  await store.close();
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('names given to the CLI', () => {
  it('refuses a key name with a C1 control, a bidi override or a zero-width space: exit 2, one line', () => {
    for (const [name, found] of [
      ['prod\u009b2J', 'U+009B at position 5'],
      ['prod\u202eevil', 'U+202E at position 5'],
      ['a\u200bb', 'U+200B at position 2'],
    ] as const) {
      const res = pageworks(['keys', 'create', '--email', 'legacy@example.com', '--service', 'render', '--name', name]);
      expect(res.code).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe(
        `pageworks: the key name cannot contain control or invisible formatting characters (found ${found})\n`,
      );
    }
  });

  it('refuses such an email address for a new account', () => {
    const res = pageworks(['accounts', 'create', '--email', 'x\u2066@example.com']);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(
      'pageworks: an email address cannot contain control or invisible formatting characters (found U+2066 at position 2)\n',
    );
  });

  it('keys list prints stored control characters as escapes, as text and as JSON', () => {
    const text = pageworks(['keys', 'list', '--email', 'legacy@example.com']);
    expect(text.code).toBe(0);
    expect(ACTING.test(text.stdout)).toBe(false);
    expect(text.stdout).toContain('pwr_live_eeee…');
    expect(text.stdout).toContain('prod\\u{9b}2J\\u{202e}evil\\u{1b}[31m\\u{200b}');

    const json = pageworks(['keys', 'list', '--email', 'legacy@example.com', '--json']);
    expect(json.code).toBe(0);
    expect(ACTING.test(json.stdout)).toBe(false);
    // Escaped as JSON escapes: a script reading it gets the stored name back exactly.
    expect(JSON.parse(json.stdout)[0].name).toBe(LEGACY);
  });
});
