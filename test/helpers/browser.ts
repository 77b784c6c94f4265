import { type Browser, chromium, type Page } from 'playwright-core';

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

/** Signs up through the dashboard's form in the browser and waits for the welcome page. */
export async function signUpInBrowser(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/keys?welcome');
}
