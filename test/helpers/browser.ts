import fs from 'node:fs';
import { createRequire } from 'node:module';
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

/** How far the page scrolls sideways (0 or less: it fits the viewport). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

let axeSource: string | undefined;

/**
 * axe-core's violations on the page, one line each (rule id and the elements). The browser context needs
 * `bypassCSP: true`: axe is injected as an inline script, which the dashboard's CSP rightly refuses.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    type Result = { violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> };
    const result = await (window as unknown as { axe: { run(): Promise<Result> } }).axe.run();
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}
