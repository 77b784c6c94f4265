/**
 * How a test starts `pageworks`: the built command (bin/pageworks.js, which runs dist/: what a user
 * runs) when dist/ is at least as new as every source file, as `npm test` leaves it; otherwise (a test
 * file run on its own after an edit) the sources through tsx, which costs 1–3 s more for every start.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The newest modification time of a file under `dir` (0 for an empty or missing folder). */
function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function builtIsCurrent(): boolean {
  const built = path.join(ROOT, 'dist', 'cli.js');
  return fs.existsSync(built) && fs.statSync(built).mtimeMs >= newestUnder(path.join(ROOT, 'src'));
}

/** Node's arguments that run `pageworks`; the command's own arguments follow them. */
export const PAGEWORKS: readonly string[] = builtIsCurrent()
  ? [path.join(ROOT, 'bin', 'pageworks.js')]
  : ['--import', 'tsx', path.join(ROOT, 'src', 'cli.ts')];
