/**
 * Which writing systems the installed fonts cover, asked of fontconfig (the same library Chromium picks
 * its fallback fonts with): a script without a font prints as empty boxes, so the render service says so
 * at start-up and in `GET /v1/ready`.
 */
import { execFile } from 'node:child_process';

/** A script a customer's document may be written in, and the fontconfig pattern a font for it must match. */
export interface FontScript {
  script: string;
  /** An `fc-list` pattern: `:lang=xx` (fontconfig's per-language orthography), or a charset for emoji. */
  pattern: string;
}

/**
 * The scripts the render service promises a font for (docs/rendering.md#fonts). Emoji is a colour font holding U+1F680 (🚀): fontconfig has no "emoji"
 * orthography, and a monochrome symbol font would print a different picture from the screen.
 */
export const FONT_SCRIPTS: readonly FontScript[] = [
  { script: 'Latin', pattern: ':lang=en' },
  { script: 'Greek', pattern: ':lang=el' },
  { script: 'Cyrillic', pattern: ':lang=ru' },
  { script: 'Japanese', pattern: ':lang=ja' },
  { script: 'Chinese (Simplified)', pattern: ':lang=zh-cn' },
  { script: 'Chinese (Traditional)', pattern: ':lang=zh-tw' },
  { script: 'Korean', pattern: ':lang=ko' },
  { script: 'Arabic', pattern: ':lang=ar' },
  { script: 'Hebrew', pattern: ':lang=he' },
  { script: 'Devanagari', pattern: ':lang=hi' },
  { script: 'Bengali', pattern: ':lang=bn' },
  { script: 'Tamil', pattern: ':lang=ta' },
  { script: 'Thai', pattern: ':lang=th' },
  { script: 'emoji', pattern: ':charset=1f680:color=true' },
];

/** The Debian packages that cover every script above (the Dockerfile's set; scripts/setup.mjs installs them). */
export const FONT_PACKAGES = 'fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fonts-liberation fontconfig';

/** What `/v1/ready` reports under `fonts`: the scripts no installed font covers, in FONT_SCRIPTS order. */
export interface FontCoverage {
  missing: string[];
  /** Set when fontconfig could not be asked at all (then every script counts as missing). */
  error?: string;
}

/** Runs `fc-list <pattern> family` and resolves with its standard output. */
export type FcListRunner = (pattern: string) => Promise<string>;

/** The family names in `fc-list … family` output: one font per line, a family's localised names after commas. */
export function parseFamilies(output: string): string[] {
  const families = new Set<string>();
  for (const line of output.split('\n')) {
    const name = line.split(',')[0].trim();
    if (name !== '') families.add(name);
  }
  return [...families];
}

/** The coverage from each script's `fc-list` output (keyed by script name; an absent key counts as no font). */
export function coverageFrom(outputs: ReadonlyMap<string, string>): FontCoverage {
  return {
    missing: FONT_SCRIPTS.filter(({ script }) => parseFamilies(outputs.get(script) ?? '').length === 0).map((s) => s.script),
  };
}

/** An FcListRunner over the `fc-list` executable (`command` lets tests put a fake one in its place). */
export function fcListRunner(command = 'fc-list'): FcListRunner {
  return (pattern) =>
    new Promise((resolve, reject) => {
      execFile(command, [pattern, 'family'], { encoding: 'utf8', timeout: 10_000 }, (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      );
    });
}

/** Asks fontconfig, one query per script (all at once: ~10 ms each), which scripts have no font. */
export async function checkFontCoverage(run: FcListRunner = fcListRunner()): Promise<FontCoverage> {
  try {
    const outputs = await Promise.all(FONT_SCRIPTS.map(async ({ script, pattern }) => [script, await run(pattern)] as const));
    return coverageFrom(new Map(outputs));
  } catch (err) {
    const reason =
      (err as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'fc-list not found (fontconfig is not installed)'
        : (err as Error).message;
    return { missing: FONT_SCRIPTS.map((s) => s.script), error: reason };
  }
}

/** The start-up log line's message for a coverage. */
export function describeCoverage(coverage: FontCoverage): string {
  if (coverage.missing.length === 0) return `fonts: every script has a font (${FONT_SCRIPTS.map((s) => s.script).join(', ')})`;
  const cause = coverage.error ? ` (${coverage.error})` : '';
  return `fonts: no font for ${coverage.missing.join(', ')}${cause}; documents in these scripts print empty boxes. Install: apt-get install -y ${FONT_PACKAGES}`;
}
