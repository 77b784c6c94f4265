/**
 * The temporary directories a process makes (Chromium's profile, an assembly's spilled parts, uploads,
 * qpdf's files, the bytes for the PDF workers): `pageworks-<kind>-<pid>-XXXXXX` in the OS temp folder.
 * Each is removed by its maker when done, but a process killed (SIGKILL, the OOM killer) cannot: a killed
 * 5,000-part assembly leaves every part it had spilled. So the first directory of a kind a process makes
 * removes those of that kind whose process is gone; the process id in the name says whose it is. The
 * folder is listed at once (before this process's own directory exists), and the removal, which may be
 * thousands of files, runs in the background: the request that made the directory does not wait for it.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What a directory is for; the second word of its name. */
export type ScratchKind = 'chromium' | 'assembly' | 'upload' | 'job-upload' | 'qpdf' | 'pdf';

const swept = new Set<ScratchKind>();

/** Whether process `pid` is alive (one of another user's counts: it is not ours to judge). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the `kind` directories of processes gone, before this process makes its first of that kind. Its
 * own id counts as gone: it has none of its own yet, so one with its id is an earlier process's that had
 * the same id (a restarted container's service often has). Only names of exactly this form are touched
 * (not an older release's, without a process id, nor another tool's), and never a live process's. Lists
 * now; resolves when the removals are done (none fails: another user's directory, say, is left).
 */
export function sweepScratchDirs(kind: ScratchKind): Promise<void> {
  const name = new RegExp(`^pageworks-${kind}-(\\d+)-[A-Za-z0-9]{6}$`);
  const tmp = os.tmpdir();
  let entries: string[];
  try {
    entries = fs.readdirSync(tmp);
  } catch {
    return Promise.resolve();
  }
  const stale = entries.filter((entry) => {
    const pid = Number(name.exec(entry)?.[1]);
    return Number.isSafeInteger(pid) && pid > 0 && (pid === process.pid || !processAlive(pid));
  });
  return Promise.all(
    stale.map((entry) => fsp.rm(path.join(tmp, entry), { recursive: true, force: true }).catch(() => undefined)),
  ).then(() => undefined);
}

function prefix(kind: ScratchKind): string {
  if (!swept.has(kind)) {
    swept.add(kind);
    void sweepScratchDirs(kind);
  }
  return path.join(os.tmpdir(), `pageworks-${kind}-${process.pid}-`);
}

/** A new private directory (mode 0700) of `kind` for this process; the caller removes it. */
export function scratchDirSync(kind: ScratchKind): string {
  return fs.mkdtempSync(prefix(kind));
}

/** A new private directory (mode 0700) of `kind` for this process; the caller removes it. */
export function scratchDir(kind: ScratchKind): Promise<string> {
  return fsp.mkdtemp(prefix(kind));
}
