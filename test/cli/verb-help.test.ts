/**
 * `--help` on every verb of the CLI (`pageworks render --help`, `pageworks keys create -h`): exit 0, the
 * verb's usage on stdout, nothing on stderr, and no configuration read (a bad one does not stop it).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_COMMANDS, synopsis } from '../../src/cli-commands.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs `pageworks …` with a configuration that would refuse to load, and collects its output. */
function pageworks(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...PAGEWORKS, ...args], {
    cwd: ROOT,
    env: { ...process.env, RENDER_CONCURRENCY: 'not-a-number', LOG_LEVEL: 'warn' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('--help on every verb', () => {
  it('prints the verb usage on stdout and exits 0', { timeout: 400_000 }, async () => {
    // Two at a time: each start loads the CLI (through tsx when dist/ is older than the sources).
    const verbs = CLI_COMMANDS.map((c) => c.verb);
    const results: Array<{ verb: string; code: number | null; stdout: string; stderr: string }> = [];
    for (let i = 0; i < verbs.length; i += 2) {
      const batch = verbs.slice(i, i + 2);
      results.push(
        ...(await Promise.all(
          batch.map(async (verb) => ({ verb, ...(await pageworks([...verb.split(' '), i % 4 === 0 ? '--help' : '-h'])) })),
        )),
      );
    }
    for (const { verb, code, stdout, stderr } of results) {
      const command = CLI_COMMANDS.find((c) => c.verb === verb);
      if (!command) throw new Error(verb);
      expect({ verb, code, stderr }).toEqual({ verb, code: 0, stderr: '' });
      expect(stdout.split('\n')[0], verb).toBe('Usage:');
      expect(stdout.split('\n')[1], verb).toBe(`  ${synopsis(command)}`);
    }
    const render = results.find((r) => r.verb === 'render');
    expect(render?.stdout).toBe(
      'Usage:\n  pageworks render IN.html [-o OUT.pdf] [--strict] [--format A4|A3|A5|Letter|Legal|Tabloid] [--landscape] ' +
        '[--print-background] [--scale S] [--margin D] [--margin-top D] [--margin-right D] [--margin-bottom D] ' +
        '[--margin-left D] [--width D] [--height D]\n' +
        '      a one-off local render, no server; -o - writes the PDF to stdout; warnings on stderr, then the standards ' +
        'the PDF claims; --strict exits 1 on any warning\n',
    );
  });

  it('a group asked for help lists its verbs', { timeout: 120_000 }, async () => {
    const { code, stdout } = await pageworks(['keys', '--help']);
    expect(code).toBe(0);
    expect(stdout.split('\n').filter((l) => l.startsWith('  pageworks '))).toEqual([
      '  pageworks keys create --email E --service render|metadata [--name N]',
      '  pageworks keys list --email E [--json]',
      '  pageworks keys revoke --key FULL_KEY_OR_DISPLAY_PREFIX [--email E]',
    ]);
  });
});
