/**
 * The README's CLI block is checked against the CLI's one table of verbs and flags (src/cli-commands.ts),
 * and the table against the parsers that do not read it whole (render's and fetch's): every flag it
 * declares is taken by them, and anything else is refused in the one wording.
 */
import { describe, expect, it, vi } from 'vitest';
import { CLI_COMMANDS, cliCommand, synopsis, unknownOptionMessage } from '../../src/cli-commands.js';
import { loadConfig } from '../../src/config.js';
import { runFetchCli } from '../../src/metadata/cli.js';
import { parseRenderArgs } from '../../src/render/cli.js';
import { readDoc, withoutFences } from './markdown.js';

/** The synopsis lines of the first code block under README's "## CLI", comments dropped. */
function readmeSynopses(): string[] {
  const text = readDoc('README.md');
  const section = text.slice(text.indexOf('\n## CLI\n'));
  expect(withoutFences(text).includes('\n## CLI\n'), 'README.md has a "## CLI" section').toBe(true);
  const block = /```[^\n]*\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) =>
      line
        .replace(/\s+#.*$/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((line) => line.startsWith('pageworks '));
}

describe('README "CLI" against src/cli-commands.ts', () => {
  const documented = readmeSynopses();
  const declared = CLI_COMMANDS.map(synopsis);

  it('lists every verb with exactly its flags', () => {
    const missing = declared.filter((line) => !documented.includes(line));
    expect(missing, 'synopses of src/cli-commands.ts that README.md "CLI" does not have (verb and flags as declared)').toEqual(
      [],
    );
  });

  it('lists no verb or flag the CLI does not have', () => {
    const extra = documented.filter((line) => !declared.includes(line));
    expect(extra, 'lines of README.md "CLI" that no verb of src/cli-commands.ts has').toEqual([]);
  });
});

/** What `fn` wrote on stderr, and what it returned. */
async function withStderr<T>(fn: () => Promise<T>): Promise<{ result: T; stderr: string }> {
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { result: await fn(), stderr };
  } finally {
    spy.mockRestore();
  }
}

const fetchConfig = loadConfig({ LOG_LEVEL: 'silent' });

describe('the parsers take exactly the declared flags', () => {
  const sampleValue = (value: string) => (value === 'D' ? '10mm' : value === 'S' ? '1' : value.split('|')[0]);

  it.each(cliCommand('render').flags.map((f) => [f.short ? `-${f.short}` : `--${f.name}`, f] as const))(
    'render takes %s',
    (flag, f) => {
      const args = ['in.html', flag, ...(f.value ? [sampleValue(f.value)] : [])];
      expect(() => parseRenderArgs(args)).not.toThrow();
    },
  );

  it('render and fetch refuse an undeclared flag in the CLI’s one wording', async () => {
    expect(() => parseRenderArgs(['in.html', '--colour', 'red'])).toThrow(unknownOptionMessage(cliCommand('render'), '--colour'));
    const { result, stderr } = await withStderr(() => runFetchCli(['--yaml', 'https://example.com/'], fetchConfig));
    expect(result).toBe(2);
    expect(stderr).toBe(`pageworks fetch: ${unknownOptionMessage(cliCommand('fetch'), '--yaml')}\n`);
  });

  it.each(cliCommand('fetch').flags.map((f) => [`--${f.name}`] as const))('fetch takes %s', async (flag) => {
    // A URL the service refuses before any network: the flag got past the parser if the URL is what fails.
    const { stderr } = await withStderr(() => runFetchCli([flag, 'ftp://example.com/'], fetchConfig));
    expect(stderr).toMatch(/^pageworks fetch: url: scheme "ftp" is not allowed/);
  });
});
