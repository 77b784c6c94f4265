/**
 * The embedded store keeps prepared statements by their SQL text. What a caller sees must not change:
 * the same text gives the statement already compiled, and a statement compiled before the table changed
 * (a migration adding a column) answers with the table as it is now.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openSqliteFile } from '../../src/store/sqlite-driver.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-sqlite-statements-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('compiles a text once, a kept statement reads a column added after it was compiled, and the bound holds', () => {
  const db = openSqliteFile(path.join(dir, 'store.sqlite'));
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
    const insert = db.prepare('INSERT INTO t (name) VALUES (?)');
    expect(db.prepare('INSERT INTO t (name) VALUES (?)')).toBe(insert);
    insert.run(['a']);
    const select = db.prepare('SELECT * FROM t ORDER BY id');
    expect(select.all([])).toEqual([{ id: 1, name: 'a' }]);

    db.exec('ALTER TABLE t ADD COLUMN size INTEGER NOT NULL DEFAULT 7');
    db.prepare('INSERT INTO t (name) VALUES (?)').run(['b']);
    expect(db.prepare('SELECT * FROM t ORDER BY id')).toBe(select);
    expect(select.all([])).toEqual([
      { id: 1, name: 'a', size: 7 },
      { id: 2, name: 'b', size: 7 },
    ]);
    // Another text is another statement, and reading and writing ones keep telling which they are.
    expect(db.prepare('SELECT name FROM t WHERE id = ?').get([2])).toEqual({ name: 'b' });
    expect(insert.reader).toBe(false);
    expect(select.reader).toBe(true);

    // Past the bound the oldest texts are compiled again when asked for, and answer the same.
    for (let i = 0; i < 300; i++) db.prepare(`SELECT ${i} AS n`).get([]);
    const again = db.prepare('SELECT * FROM t ORDER BY id');
    expect(again).not.toBe(select);
    expect(again.all([])).toEqual(select.all([]));
    expect(db.prepare('SELECT 299 AS n').get([])).toEqual({ n: 299 });
  } finally {
    db.close();
  }
});
