/** `pageworks fetch URL [--json]`: one metadata fetch through the service's code path, no server. */

import { cliCommand, synopsis, unknownOptionMessage } from '../cli-commands.js';
import { reportCliError, UsageError } from '../cli-errors.js';
import type { Config } from '../config.js';
import { MetadataError } from '../errors.js';
import { createMetadataService } from './service.js';
import { METADATA_FIELDS } from './types.js';

const COMMAND = cliCommand('fetch');
const USAGE = `usage: ${synopsis(COMMAND)}`;

/** Runs the fetch subcommand; returns the exit code (0 ok, 1 fetch failed, 2 usage). */
export async function runFetchCli(args: string[], config: Config): Promise<number> {
  let json = false;
  const positional: string[] = [];
  for (const arg of args) {
    if (arg === '--json' && json) return reportCliError('pageworks fetch', new UsageError('--json given more than once'));
    if (arg === '--json') json = true;
    else if (arg === '-h' || arg === '--help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    } else if (arg.startsWith('-')) {
      return reportCliError('pageworks fetch', new UsageError(unknownOptionMessage(COMMAND, arg)));
    } else positional.push(arg);
  }
  if (positional.length !== 1) {
    const problem = positional.length === 0 ? 'missing URL' : 'give exactly one URL';
    return reportCliError('pageworks fetch', new UsageError(`${problem} (${USAGE})`));
  }
  const service = createMetadataService(config);
  try {
    const metadata = await service.fetch(positional[0]);
    if (json) process.stdout.write(`${JSON.stringify(metadata, null, 2)}\n`);
    else process.stdout.write(METADATA_FIELDS.map((f) => `${f}: ${metadata[f] ?? 'null'}\n`).join(''));
    return 0;
  } catch (err) {
    if (!(err instanceof MetadataError)) return reportCliError('pageworks fetch', err);
    // A URL the service refuses (400: not http(s), malformed, forbidden host) is an input error;
    // a target that failed (502/504) is not.
    const message = `${err.detail} (HTTP ${err.status} from the service)`;
    return reportCliError('pageworks fetch', err.status === 400 ? new UsageError(message) : new Error(message));
  } finally {
    await service.close();
  }
}
