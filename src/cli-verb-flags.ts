/**
 * How the entry chain's verbs read their command line: a verb's flags parsed by the table's options
 * (cli-commands.ts), an unknown flag or subcommand refused in the CLI's one wording, a required value
 * named when it is missing. cli.ts and the verbs beside it share these, so each lives once.
 */
import { parseFlags } from './cli-args.js';
import { CLI_COMMANDS, cliCommand, parseArgsOptions, unknownOptionMessage } from './cli-commands.js';
import { UsageError } from './cli-errors.js';
import type { ApiService } from './config.js';

/** A verb's flags parsed by the table's options; an unknown one is refused in the CLI's one wording. */
export function parseVerb(verb: string, args: string[]): Record<string, string | boolean | undefined> {
  const command = cliCommand(verb);
  try {
    return parseFlags(args, parseArgsOptions(command));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw err;
    const arg = /'([^']+)'/.exec((err as Error).message)?.[1] ?? '?';
    throw new UsageError(unknownOptionMessage(command, arg));
  }
}

/** The subcommand's table verb (`accounts create`), or the CLI's unknown-command error. */
export function verbOf(group: string, sub: string | undefined): string {
  const verb = `${group} ${sub ?? ''}`;
  if (!CLI_COMMANDS.some((c) => c.verb === verb)) throw new UsageError(`unknown command "${verb}"`);
  return verb;
}

/** The flag's value, or a usage error naming the missing `--flag`. */
export function need(value: string | boolean | undefined, flag: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`missing --${flag}`);
  return value;
}

/** A string flag's value, or undefined when it was not given. */
export const text = (value: string | boolean | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** The `--service` flag's value: `render` or `metadata`, or a usage error. */
export function service(value: string | boolean | undefined): ApiService {
  if (value !== 'render' && value !== 'metadata') throw new UsageError('--service must be render or metadata');
  return value;
}
