import fs from 'node:fs';

/** The package version (major.minor.patch), reported by /v1/health and `pageworks --version`. */
export const VERSION: string = (
  JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
