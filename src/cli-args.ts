/**
 * The CLI's flag parser: node:util parseArgs, and a flag given twice is a usage error (exit 2) instead
 * of the last one silently winning (`--email a --email b` must not act on b unnoticed).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './cli-errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses `args` against `options` (no positionals); throws UsageError when a flag repeats or its value begins with `-`. */
export function parseFlags(args: string[], options: Options): Record<string, string | boolean | undefined> {
  const parsed = parseTokens(args, options);
  rejectRepeats(
    parsed.tokens.flatMap((t) => (t.kind === 'option' ? [t.rawName] : [])),
    options,
  );
  return parsed.values as Record<string, string | boolean | undefined>;
}

/**
 * parseArgs with its tokens. It takes `--limit -5` for a flag without its value and says so over three
 * lines, of which the CLI's one-line errors would keep "argument is ambiguous": the user is told the
 * spelling that works instead.
 */
function parseTokens(args: string[], options: Options) {
  try {
    return parseArgs({ args, options, tokens: true });
  } catch (err) {
    const message = (err as Error).message;
    if ((err as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' || !/ambiguous/.test(message)) throw err;
    const flag = /'([^']+)'/.exec(message)?.[1] ?? '?';
    const value = args[args.indexOf(flag) + 1] ?? '';
    throw new UsageError(`${flag}: "${value}" begins with a dash; to give it as the value, write ${flag}=${value}`);
  }
}

/** Throws UsageError when two of `flags` (as typed, `-o` or `--output`) name the same option of `options`. */
export function rejectRepeats(flags: readonly string[], options: Options = {}): void {
  const seen = new Set<string>();
  for (const flag of flags) {
    const short = flag.startsWith('--') ? undefined : flag.slice(1);
    const name = short === undefined ? flag.slice(2) : (Object.entries(options).find(([, o]) => o.short === short)?.[0] ?? short);
    if (seen.has(name)) throw new UsageError(`--${name} given more than once`);
    seen.add(name);
  }
}
