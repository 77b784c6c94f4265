import fs from 'node:fs';
import path from 'node:path';
import { findChromium } from '../../src/render/browser/chromium.js';
import { chromiumExecutable } from '../../src/render/browser/chromium-executable.js';

/** A Chromium executable that exits at once while `flag` exists, else runs the real one. */
export function breakableChromium(dir: string): { path: string; flag: string } {
  const flag = path.join(dir, 'broken');
  const wrapper = path.join(dir, 'chromium');
  fs.writeFileSync(
    wrapper,
    `#!/bin/sh\nif [ -e '${flag}' ]; then echo 'chromium: cannot open shared memory' >&2; exit 1; fi\nexec ${chromiumExecutable(findChromium()) ?? findChromium()} "$@"\n`,
    { mode: 0o755 },
  );
  return { path: wrapper, flag };
}
