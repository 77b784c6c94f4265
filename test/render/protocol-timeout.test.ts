/**
 * A document's ready promise is awaited in one DevTools command, so the command limit must outlast the
 * render's deadline: with RENDER_TIMEOUT_MS at its 10-minute maximum, a fixed 120 s limit failed such
 * renders with INTERNAL_ERROR ("Runtime.evaluate timed out", then retried as jobs) instead of waiting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type LaunchedChromium, launchChromium, shutdownChromium } from '../../src/render/browser/chromium.js';

let launched: LaunchedChromium | undefined;
afterEach(async () => {
  if (launched) await shutdownChromium(launched);
  launched = undefined;
});

describe('the DevTools command limit', () => {
  it('outlasts the longest render allowed (RENDER_TIMEOUT_MS 600000: 630 s)', async () => {
    launched = await launchChromium(undefined, [], 600_000);
    expect(launched.client.connection()?.timeout).toBe(630_000);
  });

  it('stays at 120 s for the default 30 s renders', async () => {
    launched = await launchChromium(undefined, [], 30_000);
    expect(launched.client.connection()?.timeout).toBe(120_000);
  });
});
