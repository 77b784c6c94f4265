/** Which Chromium the server starts when CHROMIUM_PATH is unset: the one the set-up accepted. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChromium, launchChromium, processGroupMembers, shutdownChromium } from '../../src/render/browser/chromium.js';
import { browserBuild, chromiumExecutable } from '../../src/render/browser/chromium-executable.js';

describe('finding Chromium', () => {
  it('takes CHROMIUM_PATH as given', () => {
    expect(findChromium({ configured: '/opt/chrome/chrome', exists: () => false })).toBe('/opt/chrome/chrome');
    expect(findChromium({ configured: '/usr/bin/chromium', exists: () => true })).toBe('/usr/bin/chromium');
  });

  it('prefers the headless shell, then full Chromium (chromium, chromium-browser, google-chrome), as the set-up does', () => {
    expect(findChromium({ exists: () => true })).toBe('/usr/bin/chromium-headless-shell');
    expect(findChromium({ exists: (f) => f !== '/usr/bin/chromium-headless-shell' })).toBe('/usr/bin/chromium');
    expect(findChromium({ exists: (f) => f === '/usr/bin/chromium-browser' })).toBe('/usr/bin/chromium-browser');
    expect(findChromium({ exists: (f) => f === '/usr/bin/google-chrome' })).toBe('/usr/bin/google-chrome');
    // Nothing installed: the error names the package to install.
    expect(findChromium({ exists: () => false })).toBe('/usr/bin/chromium-headless-shell');
  });

  it('tells the shell from the full browser by its binary', () => {
    expect(browserBuild('/usr/lib/chromium/chromium-headless-shell')).toBe('chromium-headless-shell');
    expect(browserBuild('/opt/chrome-headless-shell-linux64/chrome-headless-shell')).toBe('chromium-headless-shell');
    expect(browserBuild('/usr/lib/chromium/chromium')).toBe('chromium');
    expect(browserBuild('/usr/bin/google-chrome')).toBe('chromium');
  });

  it("starts the binary behind Debian's launcher scripts, and any other executable as given", () => {
    if (fs.existsSync('/usr/lib/chromium/chromium-headless-shell')) {
      expect(chromiumExecutable()).toBe('/usr/lib/chromium/chromium-headless-shell');
      expect(chromiumExecutable('/usr/bin/chromium-headless-shell')).toBe('/usr/lib/chromium/chromium-headless-shell');
    }
    if (fs.existsSync('/usr/lib/chromium/chromium')) {
      expect(chromiumExecutable('/usr/bin/chromium')).toBe('/usr/lib/chromium/chromium');
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-path-'));
    const script = path.join(dir, 'my-chrome');
    fs.writeFileSync(script, '#!/bin/sh\nexec /opt/chrome/chrome "$@"\n', { mode: 0o755 });
    expect(chromiumExecutable(script)).toBe(script);
    fs.rmSync(dir, { recursive: true });
  });

  it('is the detection scripts/setup.mjs runs (the built chromium-executable.js)', () => {
    const setup = fs.readFileSync('scripts/setup.mjs', 'utf8');
    expect(setup).toContain("path.join(root, 'dist', 'render', 'browser', 'chromium-executable.js')");
  });

  it('starts with a feature the service disables when the caller enables it (puppeteer merges every --disable-features)', async () => {
    const features = (pid: number) =>
      Object.fromEntries(
        fs
          .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
          .split('\0')
          .filter((arg) => /^--(en|dis)able-features=/.test(arg))
          .map((arg) => [arg.slice(2, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1).split(',')]),
      );
    const shipped = await launchChromium(findChromium());
    const enabled = await launchChromium(findChromium(), ['--enable-features=RenderDocument']);
    try {
      expect(features(shipped.pid)['disable-features']).toContain('RenderDocument');
      expect(features(enabled.pid)['disable-features']).not.toContain('RenderDocument');
      expect(features(enabled.pid)['disable-features']).toContain('SpareRendererForSitePerProcess');
      expect(features(enabled.pid)['enable-features']).toContain('RenderDocument');
    } finally {
      await Promise.all([shutdownChromium(shipped), shutdownChromium(enabled)]);
    }
  });

  it('the shell starts with no tab and no renderer: its start-up tab was drawn 60 times a second while idle', async () => {
    const launched = await launchChromium(findChromium());
    try {
      const { targetInfos } = await launched.client.send('Target.getTargets');
      const isRenderer = (pid: number) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--type=renderer');
        } catch {
          return false; // it ended while we looked
        }
      };
      const renderers = processGroupMembers(launched.pid).filter(isRenderer);
      if (launched.build === 'chromium-headless-shell') {
        expect(targetInfos.filter((t) => t.type === 'page')).toEqual([]);
        expect(renderers).toEqual([]);
      } else {
        // Full Chromium keeps its tab: it may quit with its last one, and it does not draw an idle tab.
        expect(targetInfos.filter((t) => t.type === 'page').map((t) => t.url)).toEqual(['about:blank']);
      }
    } finally {
      await shutdownChromium(launched);
    }
  });
});
