import { type Browser, chromium } from 'playwright-core';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Debian's Chromium under Playwright, as the dashboard's browser tests drive it (no network of its own). */
export function launchTestBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      // The sandbox needs user namespaces that root does not get.
      ...(isRoot ? ['--no-sandbox'] : []),
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-gpu',
    ],
  });
}
