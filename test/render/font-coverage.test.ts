/**
 * Font coverage: parsing fc-list output (fixtures copied from fontconfig 2.14 on Debian 12), the runner
 * against this machine's real fontconfig, a fake fc-list that has lost Thai and emoji, and what the render
 * service's GET /v1/ready says about it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRenderApp } from '../../src/app/render-app.js';
import {
  checkFontCoverage,
  coverageFrom,
  describeCoverage,
  FONT_SCRIPTS,
  fcListRunner,
  parseFamilies,
} from '../../src/render/document/font-coverage.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';

const THAI =
  'Noto Serif Thai\nNoto Looped Thai,Noto Looped Thai Regular\nNoto Sans Thai\nNoto Looped Thai,Noto Looped Thai Bold\n';
const ALL = FONT_SCRIPTS.map((s) => s.script);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-fc-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A fake fc-list: the real one, except that the patterns given print nothing (no font matches them). */
function fakeFcList(emptyFor: string[]): string {
  const file = path.join(tmp, `fc-list-${emptyFor.length}-${Math.random().toString(36).slice(2)}`);
  const cases = emptyFor.map((p) => `  '${p}') exit 0 ;;`).join('\n');
  fs.writeFileSync(file, `#!/bin/sh\ncase "$1" in\n${cases}\nesac\nexec fc-list "$@"\n`, { mode: 0o755 });
  return file;
}

describe('parsing fc-list output', () => {
  it('one family per font line, localised names after the comma dropped, duplicates merged', () => {
    expect(parseFamilies(THAI)).toEqual(['Noto Serif Thai', 'Noto Looped Thai', 'Noto Sans Thai']);
    expect(parseFamilies('')).toEqual([]);
    expect(parseFamilies('\n\n')).toEqual([]);
  });

  it('a script whose query printed nothing (or was not asked) is missing, in the documented order', () => {
    const outputs = new Map(ALL.map((script) => [script, 'Noto Sans\n']));
    expect(coverageFrom(outputs)).toEqual({ missing: [] });
    outputs.set('Thai', '');
    outputs.delete('emoji');
    outputs.set('Korean', '\n');
    expect(coverageFrom(outputs)).toEqual({ missing: ['Korean', 'Thai', 'emoji'] });
  });

  it('the log line names the missing scripts and the packages to install', () => {
    expect(describeCoverage({ missing: [] })).toMatch(/^fonts: every script has a font \(Latin, Greek, .*, emoji\)$/);
    expect(describeCoverage({ missing: ['Thai', 'emoji'] })).toBe(
      'fonts: no font for Thai, emoji; documents in these scripts print empty boxes. ' +
        'Install: apt-get install -y fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fonts-liberation fontconfig',
    );
  });
});

describe('asking fontconfig', () => {
  it('on this machine (Noto installed) no script is missing', async () => {
    expect(await checkFontCoverage()).toEqual({ missing: [] });
  });

  it('each pattern is exact: the real fc-list finds Noto Sans Thai for Thai and Noto Color Emoji for emoji', async () => {
    const run = fcListRunner();
    expect(parseFamilies(await run(':lang=th'))).toContain('Noto Sans Thai');
    expect(parseFamilies(await run(':charset=1f680:color=true'))).toEqual(['Noto Color Emoji']);
    expect(parseFamilies(await run(':lang=ko'))).toContain('Noto Sans CJK KR');
    // The colour requirement is what keeps a monochrome symbol font from counting as emoji.
    expect(parseFamilies(await run(':charset=41:color=true'))).toEqual([]);
  });

  it('a fontconfig without Thai and colour emoji: exactly those two are missing', async () => {
    const fake = fakeFcList([':lang=th', ':charset=1f680:color=true']);
    expect(await checkFontCoverage(fcListRunner(fake))).toEqual({ missing: ['Thai', 'emoji'] });
  });

  it('no fc-list at all: every script is missing, with the reason', async () => {
    const coverage = await checkFontCoverage(fcListRunner(path.join(tmp, 'no-such-fc-list')));
    expect(coverage).toEqual({ missing: ALL, error: 'fc-list not found (fontconfig is not installed)' });
  });
});

describe('GET /v1/ready on the render service', () => {
  it('reports the missing scripts under "fonts" and stays ready', async () => {
    const core = await createTestCore();
    const app = await buildRenderApp(core, { fcList: fakeFcList([':lang=th']) });
    try {
      const ready = await app.inject({ url: '/v1/ready' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({
        status: 'ready',
        checks: { store: 'ok', chromium: 'ok' },
        fonts: { missing: ['Thai'] },
        browser: expect.objectContaining({ build: expect.stringMatching(/^chromium(-headless-shell)?$/) }),
      });
    } finally {
      await app.close();
      await closeTestCore(core);
    }
  });
});
