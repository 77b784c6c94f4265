/**
 * The sRGB ICC profile a PDF/A OutputIntent carries: Chromium paints in DeviceRGB, which PDF/A accepts
 * only under an RGB OutputIntent (6.2.4.3). It comes from Debian's `icc-profiles-free` (Zlib licence),
 * which scripts/setup.mjs and the Docker image install; without it PDF/A is reported as not met.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';

/** Where Debian's icc-profiles-free puts its sRGB profile (ICC v2.3, made with Little CMS). */
export const SRGB_PROFILE_PATH = '/usr/share/color/icc/sRGB.icc';

let cached: { deflated: Buffer } | null | undefined;

/** The profile's bytes, deflated once per process; undefined when the package is not installed. */
export function srgbProfile(): { deflated: Buffer } | undefined {
  if (cached === undefined) {
    try {
      const bytes = fs.readFileSync(SRGB_PROFILE_PATH);
      // A file that is not an RGB display profile ('acsp' signature, 'RGB ' colour space) is not used.
      const valid =
        bytes.length > 128 && bytes.toString('latin1', 36, 40) === 'acsp' && bytes.toString('latin1', 16, 20) === 'RGB ';
      cached = valid ? { deflated: zlib.deflateSync(bytes) } : null;
    } catch {
      cached = null;
    }
  }
  return cached ?? undefined;
}
