/**
 * Which Chromium executable to start: one answer for the server and for `npm run setup`
 * (scripts/setup.mjs imports the built copy of this file).
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * Where Debian, Ubuntu and Google install Chromium or Chrome, in the order they are tried: Chromium's
 * headless-only build first (the same printing code without the browser UI: faster, smaller), then
 * the full browser.
 */
export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];

/**
 * Debian's launchers are shell scripts that start these binaries: /usr/bin/chromium (a long script)
 * and /usr/bin/chromium-headless-shell (a two-line `sh -e` wrapper that does not exec, so the browser
 * would run as a child of a shell).
 */
const DEBIAN_BINARIES: Record<string, string> = {
  chromium: '/usr/lib/chromium/chromium',
  'chromium-headless-shell': '/usr/lib/chromium/chromium-headless-shell',
};

/** Which build an executable is: Chromium's headless shell (Debian's or Google's chrome-headless-shell) or a full browser. */
export type BrowserBuild = 'chromium-headless-shell' | 'chromium';

/** The build an executable path names (the shell's binaries and launchers all carry "headless-shell"/"headless_shell"). */
export function browserBuild(executable: string): BrowserBuild {
  return /headless[-_]shell/.test(path.basename(executable)) ? 'chromium-headless-shell' : 'chromium';
}

/**
 * The program to start for `configured` (CHROMIUM_PATH) or the first installed candidate; undefined
 * when none exists. Debian's launcher scripts are skipped for the binary they start: /usr/bin/chromium's
 * /etc/chromium.d/dev-shm test prints "[: …: unexpected operator" on every start where findmnt reports
 * /dev/shm twice, and the flags it adds are desktop ones (extensions, GPU rasterisation, pings) that
 * chromiumArgs() overrides or already carries (--disable-dev-shm-usage).
 */
export function chromiumExecutable(configured?: string): string | undefined {
  const found = [configured, ...CHROMIUM_CANDIDATES].find((p): p is string => Boolean(p) && fs.existsSync(p as string));
  if (found === undefined) return configured;
  const binary = debianBinaryFor(found);
  return binary !== undefined && fs.existsSync(binary) ? binary : found;
}

function debianBinaryFor(file: string): string | undefined {
  const head = readHead(file);
  if (!head.startsWith('#!')) return undefined;
  if (head.includes('# Chromium launcher') && head.includes('LIBDIR=/usr/lib/$APPNAME')) return DEBIAN_BINARIES.chromium;
  // The whole wrapper is one command line naming the binary, which is then the only thing it runs.
  const shell = DEBIAN_BINARIES['chromium-headless-shell'];
  if (head.split('\n').some((line) => line.trim().startsWith(`${shell} `))) return shell;
  return undefined;
}

function readHead(file: string): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(4096);
      return buf.toString('latin1', 0, fs.readSync(fd, buf, 0, buf.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}
