/**
 * The CLI's verbs and flags, declared once: the parsers take their options from here, `--help` and the
 * unknown-option messages print from here, and the README's CLI block is checked against it
 * (test/docs/cli-reference.test.ts).
 */

/** One flag of a verb: `--name VALUE` (a string) or `--name` alone (a switch). */
export interface CliFlag {
  name: string;
  /** What the value looks like in the synopsis (`E`, `render|metadata`); absent for a switch. */
  value?: string;
  required?: boolean;
  /** A one-letter alias (`-o`). */
  short?: string;
}

/** One verb (`keys list`) with its positional argument and flags. */
export interface CliCommand {
  verb: string;
  /** The positional argument (`IN.html`, `URL`), if the verb takes one. */
  positional?: string;
  flags: readonly CliFlag[];
  /** What it does, in a few words, after the synopsis in `--help`. */
  note?: string;
  /** What the verb's own `--help` says after its synopsis and note: what it takes, each flag. */
  details?: string;
}

const email: CliFlag = { name: 'email', value: 'E', required: true };
const apiService: CliFlag = { name: 'service', value: 'render|metadata', required: true };
const dimension = (name: string): CliFlag => ({ name, value: 'D' });

/** Every verb of `pageworks`, in the order `--help` lists them. */
export const CLI_COMMANDS: readonly CliCommand[] = [
  { verb: 'serve', flags: [{ name: 'services', value: 'LIST' }], note: 'LIST: dashboard,render,metadata or render-worker' },
  { verb: 'accounts create', flags: [email, { name: 'password', value: 'P' }] },
  {
    verb: 'accounts set-limit',
    flags: [email, apiService, { name: 'limit', value: 'N|default', required: true }],
    note: 'requests per minute, or per RATE_LIMIT_WINDOW_S; "default" clears',
  },
  { verb: 'accounts reset-password', flags: [email], note: 'prints a one-time reset link, valid 30 minutes' },
  { verb: 'accounts delete', flags: [email], note: 'keys refused at once, sessions ended, data removed' },
  { verb: 'keys create', flags: [email, apiService, { name: 'name', value: 'N' }], note: 'prints the full key alone on stdout' },
  { verb: 'keys list', flags: [email, { name: 'json' }] },
  {
    verb: 'keys revoke',
    flags: [
      { name: 'key', value: 'FULL_KEY_OR_DISPLAY_PREFIX', required: true },
      { name: 'email', value: 'E' },
    ],
    note: '--email narrows a prefix several accounts share',
  },
  {
    verb: 'backup',
    flags: [{ name: 'to', value: 'FILE', required: true }],
    note: 'a consistent copy of the SQLite store, while serve runs',
  },
  {
    verb: 'webhooks secret',
    flags: [email, { name: 'rotate' }],
    note: 'prints the webhook signing secret alone on stdout; after --rotate the old one signs too for 24 h',
  },
  {
    verb: 'secrets rotate',
    flags: [],
    note: 'seals stored secrets again with a new key: SECRETS_KEY (the old one in SECRETS_KEY_PREVIOUS), or a new key file on the embedded store',
  },
  {
    verb: 'render',
    positional: 'IN.html',
    flags: [
      { name: 'output', short: 'o', value: 'OUT.pdf' },
      { name: 'strict' },
      { name: 'format', value: 'A4|A3|A5|Letter|Legal|Tabloid' },
      { name: 'landscape' },
      { name: 'print-background' },
      { name: 'scale', value: 'S' },
      dimension('margin'),
      dimension('margin-top'),
      dimension('margin-right'),
      dimension('margin-bottom'),
      dimension('margin-left'),
      dimension('width'),
      dimension('height'),
    ],
    note: 'a one-off local render, no server; -o - writes the PDF to stdout; warnings on stderr, then the standards the PDF claims; --strict exits 1 on any warning',
  },
  {
    verb: 'assemble',
    positional: 'BODY.json|-',
    flags: [
      { name: 'output', short: 'o', value: 'OUT.pdf' },
      { name: 'stamp', value: 'STAMP.html' },
      { name: 'split', value: 'parts|N' },
      { name: 'strict' },
    ],
    note: 'a one-off local assembly of a POST /v1/assemble body (- reads stdin), no server; --help says more',
    details: `Assembles the parts of BODY.json (the body of POST /v1/assemble: {"parts": [...]}, with "stamps", "metadata",
"split" and "protect" if given) into one PDF, on this machine, without a server. "-" reads the body from stdin.
Parts: {"html", "options"?}, {"pdf": base64}, {"url"} (fetched through the egress policy; EGRESS_ALLOW as for
the service) or {"file": "terms.pdf"} (the file of that name beside BODY.json, or in the current directory for
stdin: what the API takes uploaded beside the body). "sign" needs the service's certificates: use
POST /v1/assemble.

  -o, --output OUT.pdf   where the PDF goes (default: BODY.pdf beside BODY.json, BODY.zip with --split; "-" writes it to stdout)
  --stamp STAMP.html     adds a stamp drawn over every page: {{page}} {{pages}} {{part}} {{part_title}}
                         {{part_page}} {{part_pages}} are filled in (repeatable; "stamps" in the body says more)
  --split parts|N        a zip of PDFs: one per part, or one per N pages (the body's "split")
  --strict               any warning fails the assembly (exit 1, no PDF written)`,
  },
  { verb: 'fetch', positional: 'URL', flags: [{ name: 'json' }], note: 'a one-off local metadata fetch, no server' },
];

/** The command of a verb; throws for a verb the table does not have (a programming error). */
export function cliCommand(verb: string): CliCommand {
  const found = CLI_COMMANDS.find((c) => c.verb === verb);
  if (!found) throw new Error(`no CLI verb "${verb}"`);
  return found;
}

/** `pageworks keys list --email E [--json]`: the synopsis of one verb. */
export function synopsis(command: CliCommand): string {
  const flags = command.flags.map((f) => {
    const flag = f.short ? `-${f.short}` : `--${f.name}`;
    const text = f.value ? `${flag} ${f.value}` : flag;
    return f.required ? text : `[${text}]`;
  });
  return ['pageworks', command.verb, command.positional, ...flags].filter(Boolean).join(' ');
}

/** The options of a verb in node:util parseArgs' form. */
export function parseArgsOptions(command: CliCommand): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  return Object.fromEntries(
    command.flags.map((f) => [
      f.name,
      { type: f.value ? ('string' as const) : ('boolean' as const), ...(f.short ? { short: f.short } : {}) },
    ]),
  );
}

/** Whether `arg` (`--json`, `-o`) is a flag of the verb. */
export function isFlagOf(command: CliCommand, arg: string): boolean {
  return command.flags.some((f) => arg === `--${f.name}` || (f.short !== undefined && arg === `-${f.short}`));
}

/** The one wording of an unknown option, for every verb: the option and the verb's synopsis. */
export function unknownOptionMessage(command: CliCommand, arg: string): string {
  return `unknown option ${arg} (usage: ${synopsis(command)})`;
}

const HELP = new Set(['--help', '-h']);

/**
 * The usage of the verb `argv` names when it asks for help (`pageworks render --help`,
 * `pageworks keys create -h`): its synopsis and note, then its details if it has any; for a group alone
 * (`pageworks keys --help`), each of its verbs. Undefined when `argv` does not ask for help or names no verb.
 */
export function verbHelp(argv: readonly string[]): string | undefined {
  const [group, sub] = argv;
  if (!argv.slice(1).some((arg) => HELP.has(arg))) return undefined;
  const matching = CLI_COMMANDS.filter((c) => c.verb === group || c.verb === `${group} ${sub}`);
  const commands = matching.length > 0 ? matching : CLI_COMMANDS.filter((c) => c.verb.startsWith(`${group} `));
  if (commands.length === 0) return undefined;
  const usage = `Usage:\n${commands.map((c) => `  ${synopsis(c)}${c.note ? `\n      ${c.note}` : ''}`).join('\n')}`;
  const details = commands.length === 1 ? commands[0].details : undefined;
  return details ? `${usage}\n\n${details}` : usage;
}
