/**
 * The CLI's one exit-code rule, verb by verb: a usage or input error exits 2, any other failure exits 1,
 * and both say so in exactly one line on stderr with nothing on stdout.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGEWORKS } from '../helpers/pageworks-command.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-exit-'));
const page = path.join(dir, 'page.html');
const neverReady = path.join(dir, 'never-ready.html');
fs.writeFileSync(page, '<h1>x</h1>');
fs.writeFileSync(neverReady, '<script>window.pageworksReady = false;</script>');

/** Runs `pageworks …` (pageworks-command.ts says which build) on this file's own embedded store. */
function pageworks(
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PAGEWORKS_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'warn', ...extra };
  if (!('DATABASE_URL' in extra)) delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [...PAGEWORKS, ...args], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // 'close', not 'exit': a process's last output can still be in its pipes when it has exited.
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

// A port nothing listens on (for an unreachable store or target) and one that is taken (for serve).
let closedPort = 0;
let busy: net.Server;
beforeAll(async () => {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise((r) => probe.close(r));
  busy = net.createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const created = await pageworks(['accounts', 'create', '--email', 'a@example.com']);
  expect(created.code).toBe(0);
});
afterAll(async () => {
  await new Promise((r) => busy.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

const deadStore = () => ({ DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/none` });

type Row = [label: string, args: () => string[], env: () => Record<string, string>, code: 1 | 2, stderr: RegExp];

const E = 'a@example.com';
const rows: Row[] = [
  // No verb, an unknown one, bad configuration.
  ['no command', () => [], () => ({}), 2, /^pageworks: missing command \(see pageworks --help\)$/],
  ['unknown command', () => ['frobnicate'], () => ({}), 2, /^pageworks: unknown command "frobnicate"/],
  ['bad variable', () => ['keys', 'list', '--email', E], () => ({ RENDER_PORT: 'abc' }), 2, /^pageworks: RENDER_PORT: /],
  // serve
  [
    'serve: unknown flag',
    () => ['serve', '--bogus'],
    () => ({}),
    2,
    /^pageworks: unknown option --bogus \(usage: pageworks serve /,
  ],
  [
    'serve: unknown service',
    () => ['serve', '--services', 'pdf'],
    () => ({}),
    2,
    /^pageworks: --services: unknown service "pdf"/,
  ],
  [
    'serve: port taken',
    () => ['serve', '--services', 'metadata'],
    () => ({ METADATA_PORT: String((busy.address() as net.AddressInfo).port) }),
    1,
    /^pageworks: .*EADDRINUSE/,
  ],
  // accounts
  ['accounts create: no email', () => ['accounts', 'create'], () => ({}), 2, /^pageworks: missing --email$/],
  ['accounts create: bad email', () => ['accounts', 'create', '--email', 'nope'], () => ({}), 2, /is not an email address$/],
  ['accounts create: store down', () => ['accounts', 'create', '--email', 'c@example.com'], deadStore, 1, /^pageworks: /],
  [
    'accounts set-limit: bad limit',
    () => ['accounts', 'set-limit', '--email', E, '--service', 'render', '--limit', 'lots'],
    () => ({}),
    2,
    /^pageworks: --limit must be a whole number or "default"$/,
  ],
  [
    'accounts set-limit: a value beginning with a dash',
    () => ['accounts', 'set-limit', '--email', E, '--service', 'render', '--limit', '-5'],
    () => ({}),
    2,
    /^pageworks: --limit: "-5" begins with a dash; to give it as the value, write --limit=-5$/,
  ],
  [
    'accounts set-limit: store down',
    () => ['accounts', 'set-limit', '--email', E, '--service', 'render', '--limit', '5'],
    deadStore,
    1,
    /^pageworks: /,
  ],
  [
    'accounts reset-password: unknown',
    () => ['accounts', 'reset-password', '--email', 'x@example.com'],
    () => ({}),
    2,
    /no account for/,
  ],
  ['accounts reset-password: store down', () => ['accounts', 'reset-password', '--email', E], deadStore, 1, /^pageworks: /],
  ['accounts delete: unknown', () => ['accounts', 'delete', '--email', 'x@example.com'], () => ({}), 2, /no account for/],
  ['accounts delete: store down', () => ['accounts', 'delete', '--email', E], deadStore, 1, /^pageworks: /],
  ['accounts: unknown subcommand', () => ['accounts', 'frob', '--email', E], () => ({}), 2, /unknown command "accounts frob"/],
  // keys
  ['keys create: bad service', () => ['keys', 'create', '--email', E, '--service', 'pdf'], () => ({}), 2, /--service must be/],
  ['keys create: store down', () => ['keys', 'create', '--email', E, '--service', 'render'], deadStore, 1, /^pageworks: /],
  ['keys list: no email', () => ['keys', 'list'], () => ({}), 2, /^pageworks: missing --email$/],
  ['keys list: store down', () => ['keys', 'list', '--email', E], deadStore, 1, /^pageworks: /],
  ['keys revoke: no key', () => ['keys', 'revoke'], () => ({}), 2, /^pageworks: missing --key$/],
  ['keys revoke: unknown key', () => ['keys', 'revoke', '--key', 'pwr_live_abcd'], () => ({}), 2, /no active key matches/],
  ['keys revoke: store down', () => ['keys', 'revoke', '--key', 'pwr_live_abcd'], deadStore, 1, /^pageworks: /],
  ['keys: unknown subcommand', () => ['keys', 'frob'], () => ({}), 2, /unknown command "keys frob"/],
  // backup
  ['backup: no --to', () => ['backup'], () => ({}), 2, /^pageworks: missing --to$/],
  ['backup: file exists', () => ['backup', '--to', page], () => ({}), 2, /exists already; choose a new file$/],
  ['backup: on PostgreSQL', () => ['backup', '--to', path.join(dir, 'b.sqlite')], deadStore, 2, /on PostgreSQL use pg_dump$/],
  [
    'backup: unwritable target (its folder is a file)',
    () => ['backup', '--to', path.join(page, 'b.sqlite')],
    () => ({}),
    1,
    /^pageworks: E(NOTDIR|EXIST)\b/,
  ],
  // render
  ['render: no input', () => ['render'], () => ({}), 2, /^pageworks render: missing IN\.html \(usage: /],
  ['render: unknown flag', () => ['render', page, '--bogus'], () => ({}), 2, /^pageworks render: unknown option --bogus/],
  ['render: unreadable input', () => ['render', path.join(dir, 'none.html')], () => ({}), 2, /cannot read .*ENOENT$/],
  [
    'render: --scale 3',
    () => ['render', page, '--scale', '3'],
    () => ({}),
    2,
    /^pageworks render: INVALID_REQUEST: options\.scale/,
  ],
  [
    'render: timed out',
    () => ['render', neverReady, '-o', path.join(dir, 'out.pdf')],
    () => ({ RENDER_TIMEOUT_MS: '1500' }),
    1,
    /^pageworks render: RENDER_TIMEOUT: /,
  ],
  // fetch
  ['fetch: no URL', () => ['fetch'], () => ({}), 2, /^pageworks fetch: missing URL/],
  [
    'fetch: unknown flag',
    () => ['fetch', '--yaml', 'http://x.example/'],
    () => ({}),
    2,
    /^pageworks fetch: unknown option --yaml/,
  ],
  ['fetch: ftp URL', () => ['fetch', 'ftp://x'], () => ({}), 2, /^pageworks fetch: url: scheme "ftp" is not allowed/],
  ['fetch: forbidden address', () => ['fetch', 'http://127.0.0.2/'], () => ({}), 2, /^pageworks fetch: url not allowed/],
  [
    'fetch: target unreachable',
    () => ['fetch', `http://127.0.0.1:${closedPort}/`],
    () => ({ EGRESS_ALLOW: '127.0.0.1/32' }),
    1,
    /^pageworks fetch: .*HTTP 502 from the service/,
  ],
  // A flag given twice is a usage error on every verb, never "the last one wins".
  ...(
    [
      ['serve', '--services', 'render', '--services', 'metadata'],
      ['accounts', 'create', '--email', 'b@example.com', '--email', 'c@example.com'],
      ['accounts', 'set-limit', '--email', E, '--service', 'render', '--limit', '5', '--limit', '6'],
      ['keys', 'create', '--email', E, '--service', 'render', '--service', 'metadata'],
      ['keys', 'list', '--email', E, '--json', '--json'],
      ['keys', 'revoke', '--key', 'pwr_live_abcd', '--key', 'pwr_live_abce'],
      ['backup', '--to', 'x.sqlite', '--to', 'y.sqlite'],
      ['webhooks', 'secret', '--email', E, '--email', 'other@example.com'],
    ] as const
  ).map(
    (args): Row => [
      `${args[0]} ${args[1]}: repeated flag`,
      () => [...args],
      () => ({}),
      2,
      new RegExp(`^pageworks: --${args.at(-2)?.slice(2)} given more than once$`),
    ],
  ),
  [
    'render: repeated flag',
    () => ['render', page, '--format', 'A4', '--format', 'A3'],
    () => ({}),
    2,
    /^pageworks render: --format given more than once$/,
  ],
  [
    'render: -o and --output',
    () => ['render', page, '-o', 'a.pdf', '--output', 'b.pdf'],
    () => ({}),
    2,
    /^pageworks render: --output given more than once$/,
  ],
  [
    'fetch: repeated flag',
    () => ['fetch', '--json', '--json', 'http://x.example/'],
    () => ({}),
    2,
    /^pageworks fetch: --json given more than once$/,
  ],
];

describe('pageworks exit codes', () => {
  const titled = rows.map(([label, ...rest]) => [`${label} → exit ${rest[2]}, one stderr line`, ...rest] as const);
  it.concurrent.each(titled)(
    '%s',
    async (_title, args, env, code, stderr) => {
      const res = await pageworks(args(), env());
      expect({ code: res.code, stdout: res.stdout }).toEqual({ code, stdout: '' });
      const lines = res.stderr.split('\n');
      expect(lines.at(-1), 'ends with a newline').toBe('');
      expect(lines.slice(0, -1), res.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(stderr);
      // A process start each, five at a time: generous, as a loaded machine needs.
    },
    180_000,
  );

  it('--help prints the usage on stdout and exits 0', async () => {
    const res = await pageworks(['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^pageworks \d+\.\d+\.\d+: /);
    expect(res.stderr).toBe('');
  });
});
