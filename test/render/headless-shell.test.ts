/**
 * What a document can see of the browser it prints on (docs/rendering.md, "The headless shell and full
 * Chromium"): the same fonts, media queries and frames on both builds, and the few documented differences,
 * checked on whichever build the suite runs on (the shell by default; CI also runs this file on full
 * Chromium with CHROMIUM_PATH=/usr/bin/chromium). Each value is printed by the document and read back
 * from the PDF's text, as a user would see it.
 */
import { execFileSync } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { pdfFonts, pdfText } from './pdf-tools.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let build: 'chromium-headless-shell' | 'chromium';

beforeAll(async () => {
  core = await createTestCore();
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
  build = (await app.inject({ url: '/v1/ready' })).json().browser.build;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

/** Renders `html` and returns the PDF. */
async function print(html: string): Promise<Buffer> {
  const res = await postRender(app, key, { html });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res.rawPayload;
}

// Each probe prints as "name=value" on its own line; pageworksReady waits for the frames counted.
const PROBE = `<!doctype html><html lang="en"><body><div id="out"></div><script>
const mq = (q) => matchMedia(q).matches;
const lines = {
  'ua-version': /HeadlessChrome\\/([\\d.]+)/.exec(navigator.userAgent)[1],
  languages: navigator.languages.join('+'),
  plugins: navigator.plugins.length + '/' + navigator.mimeTypes.length + '/' + navigator.pdfViewerEnabled,
  'window-chrome': typeof window.chrome,
  outer: outerWidth + 'x' + outerHeight,
  inner: innerWidth + 'x' + innerHeight,
  screen: screen.width + 'x' + screen.height,
  dark: mq('(prefers-color-scheme: dark)'),
  light: mq('(prefers-color-scheme: light)'),
  'reduced-motion': mq('(prefers-reduced-motion: reduce)'),
  'contrast-more': mq('(prefers-contrast: more)'),
  'forced-colors': mq('(forced-colors: active)'),
  'reduced-transparency': mq('(prefers-reduced-transparency: reduce)'),
  hover: mq('(hover: hover)'),
  visibility: document.visibilityState,
  focus: document.hasFocus(),
  tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
  locale: Intl.DateTimeFormat().resolvedOptions().locale,
};
let printed = 'returned';
try { window.print(); } catch (e) { printed = 'threw'; }
lines.print = printed;
lines.popup = window.open('about:blank') === null ? 'blocked' : 'opened';
window.pageworksReady = new Promise((resolve) => {
  let frames = 0;
  const tick = () => {
    if (++frames < 10) return requestAnimationFrame(tick);
    lines.frames = frames;
    for (const [k, v] of Object.entries(lines)) {
      const p = document.createElement('p');
      p.textContent = k + '=' + v;
      out.append(p);
    }
    resolve();
  };
  requestAnimationFrame(tick);
});
</script></body></html>`;

function probed(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^\s*([a-z-]+)=(\S*)\s*$/gm)].map((m) => [m[1], m[2]]));
}

describe('what a document sees of the browser', () => {
  it('the same media queries, frames, window, time zone, window.print() and window.open() on both builds', async () => {
    const seen = probed(pdfText(await print(PROBE)));
    expect(seen).toMatchObject({
      inner: '800x600',
      screen: '800x600',
      dark: 'false',
      light: 'true',
      'reduced-motion': 'true',
      'contrast-more': 'false',
      'forced-colors': 'false',
      'reduced-transparency': 'false',
      hover: 'false',
      visibility: 'visible',
      focus: 'true',
      tz: 'UTC',
      locale: 'en-US',
      print: 'returned',
      popup: 'blocked',
      frames: '10',
    });
  });

  // The time the document's first 20 frames take, and the paints it was told of. A loaded machine only
  // slows frames down, so the bounds hold under load: 20 frames within 5 s (they come, at 4 a second or
  // more; at 60 Hz they take a third of a second) and at most 80 a second (none flood). The document stops
  // waiting after 5 s and prints how many it got, so a missing frame source fails here, not as a timeout.
  const COUNT_FRAMES = `<!doctype html><h1>Heading</h1><p id="out"></p><script>
    window.pageworksReady = new Promise((resolve) => {
      let frames = 0;
      let first = 0;
      const done = (elapsed) => {
        const paints = performance.getEntriesByType('paint').map((entry) => entry.name).join('+');
        document.getElementById('out').innerHTML =
          'frames=' + frames + '<br>elapsed=' + Math.round(elapsed) + '<br>paints=' + paints;
        resolve();
      };
      const timer = setTimeout(() => done(-1), 5000);
      const tick = () => {
        frames += 1;
        if (frames === 1) first = performance.now();
        if (frames < 20) return requestAnimationFrame(tick);
        clearTimeout(timer);
        done(performance.now() - first);
      };
      requestAnimationFrame(tick);
    });
  </script>`;

  /** Checks what a COUNT_FRAMES document printed: 20 frames, 19 intervals at 80 a second or fewer. */
  function expectDisplayFrames(seen: Record<string, string>): void {
    expect(seen.frames).toBe('20');
    expect(Number(seen.elapsed)).toBeGreaterThanOrEqual(Math.floor((19 * 1000) / 80));
  }

  it("frames come while the document gets ready, never faster than a display's, and are painted (on the shell, sent by the render)", async () => {
    const seen = probed(pdfText(await print(COUNT_FRAMES)));
    expectDisplayFrames(seen);
    expect(seen.paints).toBe('first-paint+first-contentful-paint');
  });

  it('documents that ask for frames at the same time all get them, and the browser stays up', async () => {
    const pdfs = await Promise.all([print(COUNT_FRAMES), print(COUNT_FRAMES), print(COUNT_FRAMES)]);
    for (const pdf of pdfs) expectDisplayFrames(probed(pdfText(pdf)));
  });

  it('the documented differences: user agent version, languages, PDF plugins, window.chrome, outer size', async () => {
    const seen = probed(pdfText(await print(PROBE)));
    if (build === 'chromium-headless-shell') {
      expect(seen['ua-version']).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(seen['ua-version']).not.toMatch(/\.0\.0\.0$/);
      expect(seen).toMatchObject({ languages: 'en-US', plugins: '0/0/false', 'window-chrome': 'undefined', outer: '800x600' });
    } else {
      expect(seen['ua-version']).toMatch(/^\d+\.0\.0\.0$/);
      expect(seen).toMatchObject({ languages: 'en-US+en', plugins: '5/2/true', 'window-chrome': 'object', outer: '780x580' });
    }
  });

  it("generic font families print in full Chromium's fonts on both builds (monospace: fontconfig's Monospace)", async () => {
    const families = ['monospace', 'serif', 'sans-serif'];
    const pdf = await print(
      `<!doctype html><html lang="en"><body>${families.map((f) => `<p style="font-family:${f}">${f} text 0123</p>`).join('')}<pre>pre 0123</pre></body></html>`,
    );
    const fonts = pdfFonts(pdf)
      .split('\n')
      .map((line) => /^[A-Z]{6}\+(\S+)/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined)
      .sort();
    // Full Chromium's preferences on Linux: Monospace, Times New Roman, Arial, as fontconfig resolves them
    // (DejaVu Sans Mono, Liberation Serif, Liberation Sans on Debian). Without Pageworks setting the fixed
    // font, the shell printed `monospace` in Liberation Mono.
    const expected = ['Monospace', 'Times New Roman', 'Arial'].map((family) =>
      execFileSync('fc-match', ['-f', '%{postscriptname}', family], { encoding: 'utf8' }).replace(/-Regular$/, ''),
    );
    expect(fonts).toEqual([...new Set(expected)].sort());
  });
});
