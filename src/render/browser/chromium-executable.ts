/**
 * Which Chromium executable to start: one answer for the server and for `npm run setup`
 * (scripts/setup.mjs imports the built copy of this file).
 */
import fs from 'node:fs';

/** Where Debian, Ubuntu and Google install Chromium or Chrome, in the order they are tried. */
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Debian's launcher script (/usr/bin/chromium) starts this binary. */
const DEBIAN_BINARY = '/usr/lib/chromium/chromium';

/**
 * The program to start for `configured` (CHROMIUM_PATH) or the first installed candidate; undefined
 * when none exists. Debian's /usr/bin/chromium is a shell script whose /etc/chromium.d/dev-shm test
 * prints "[: …: unexpected operator" on every start where findmnt reports /dev/shm twice; the flags
 * it adds are desktop ones (extensions, GPU rasterisation, pings) that chromiumArgs() overrides or
 * already carries (--disable-dev-shm-usage), so the binary it execs is started directly instead.
 */
export function chromiumExecutable(configured?: string): string | undefined {
  const found = [configured, ...CHROMIUM_CANDIDATES].find((p): p is string => Boolean(p) && fs.existsSync(p as string));
  if (found === undefined) return configured;
  return isDebianLauncher(found) && fs.existsSync(DEBIAN_BINARY) ? DEBIAN_BINARY : found;
}

function isDebianLauncher(file: string): boolean {
  let head = '';
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(4096);
      head = buf.toString('latin1', 0, fs.readSync(fd, buf, 0, buf.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
  return head.startsWith('#!') && head.includes('# Chromium launcher') && head.includes('LIBDIR=/usr/lib/$APPNAME');
}
