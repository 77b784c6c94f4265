/** `pageworks fetch URL [--json]`: one metadata fetch through the service's code path, no server. */
import type { Config } from '../config.js';
import { MetadataError } from '../errors.js';
import { createMetadataService } from './service.js';
import { METADATA_FIELDS } from './types.js';

const USAGE = 'usage: pageworks fetch URL [--json]';

/** Runs the fetch subcommand; returns the exit code (0 ok, 1 fetch failed, 2 usage). */
export async function runFetchCli(args: string[], config: Config): Promise<number> {
  let json = false;
  const positional: string[] = [];
  for (const arg of args) {
    if (arg === '--json') json = true;
    else if (arg === '-h' || arg === '--help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    } else if (arg.startsWith('-')) {
      process.stderr.write(`error: unknown option ${arg} (${USAGE})\n`);
      return 2;
    } else positional.push(arg);
  }
  if (positional.length !== 1) {
    process.stderr.write(`error: ${positional.length === 0 ? 'missing URL' : 'give exactly one URL'} (${USAGE})\n`);
    return 2;
  }
  const service = createMetadataService(config);
  try {
    const metadata = await service.fetch(positional[0]);
    if (json) process.stdout.write(`${JSON.stringify(metadata, null, 2)}\n`);
    else process.stdout.write(METADATA_FIELDS.map((f) => `${f}: ${metadata[f] ?? 'null'}\n`).join(''));
    return 0;
  } catch (err) {
    const detail = err instanceof MetadataError ? `${err.detail} (HTTP ${err.status} from the service)` : (err as Error).message;
    process.stderr.write(`error: ${detail}\n`);
    return 1;
  } finally {
    await service.close();
  }
}
