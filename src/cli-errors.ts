/**
 * The CLI's one exit-code rule, for every verb: a usage or input error exits 2, any other failure
 * exits 1, and either is reported as one line on stderr.
 */
import { ConfigError } from './config-env.js';
import { InputError } from './errors.js';

/** A mistake in the command line or its input (a flag, a value, a file, an unknown account): exit 2. */
export class UsageError extends InputError {
  override name = 'UsageError';
}

/** 2 for a usage or input error (an account refused, too: AccountError is one), 1 for anything else. */
export function exitCodeOf(err: unknown): 1 | 2 {
  if (err instanceof InputError || err instanceof ConfigError) return 2;
  // node:util parseArgs: an unknown option, a missing value, a stray positional.
  if ((err as NodeJS.ErrnoException | undefined)?.code?.startsWith('ERR_PARSE_ARGS')) return 2;
  return 1;
}

/**
 * What a terminal could take for a command or a new line: C0 and C1 control characters (ESC, BEL, CR, …),
 * DEL, line and paragraph separators, and the bidirectional overrides that reorder what is shown.
 */
const TERMINAL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` as one line a terminal shows as it reads: controls become spaces, runs of white space one space. */
export function terminalLine(text: string): string {
  return text.replace(TERMINAL_CONTROLS, ' ').replace(/\s+/g, ' ').trim();
}

/** Writes `prefix: message` as one line on stderr (a multi-line message is cut to its first line) and returns the exit code. */
export function reportCliError(prefix: string, err: unknown): 1 | 2 {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${prefix}: ${terminalLine(message.split('\n')[0] ?? '')}\n`);
  return exitCodeOf(err);
}
