/** Which Chromium the server starts when CHROMIUM_PATH is unset: the one the set-up accepted. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium.js';

describe('finding Chromium', () => {
  it('takes CHROMIUM_PATH as given', () => {
    expect(findChromium({ configured: '/opt/chrome/chrome', exists: () => false })).toBe('/opt/chrome/chrome');
  });

  it('takes the first candidate that exists (chromium-browser, google-chrome), as the set-up does', () => {
    expect(findChromium({ exists: (f) => f === '/usr/bin/chromium-browser' })).toBe('/usr/bin/chromium-browser');
    expect(findChromium({ exists: (f) => f === '/usr/bin/google-chrome' })).toBe('/usr/bin/google-chrome');
    expect(findChromium({ exists: () => false })).toBe('/usr/bin/chromium');
  });

  it('is the detection scripts/setup.mjs runs (the built chromium-executable.js)', () => {
    const setup = fs.readFileSync('scripts/setup.mjs', 'utf8');
    expect(setup).toContain("path.join(root, 'dist', 'render', 'browser', 'chromium-executable.js')");
  });
});
