#!/usr/bin/env node
import { accountsCommand, keysCommand, webhooksCommand } from './cli-account-verbs.js';
import { CLI_COMMANDS, synopsis, verbHelp } from './cli-commands.js';
import { reportCliError, UsageError } from './cli-errors.js';
import { need, parseVerb, verbOf } from './cli-verb-flags.js';
import { loadConfig, parseServices } from './config.js';
import { VERSION } from './version.js';

const USAGE = `pageworks ${VERSION}: HTML-to-PDF and URL-metadata API

Usage:
${CLI_COMMANDS.map((c) => `  ${synopsis(c)}${c.note ? `\n      ${c.note}` : ''}`).join('\n')}

Configuration comes from environment variables (see docs/deploy.md#configuration-reference).`;

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    console.log(VERSION);
    return 0;
  }
  // `pageworks render --help`: the verb's usage on stdout, before any configuration is read.
  const help = verbHelp(argv);
  if (help !== undefined) {
    console.log(help);
    return 0;
  }
  try {
    if (command === undefined) throw new UsageError('missing command (see pageworks --help)');
    const config = loadConfig();
    switch (command) {
      case 'serve': {
        const { services: list } = parseVerb('serve', rest);
        const services = typeof list === 'string' ? parseServices(list, '--services') : config.services;
        // Loaded here: the servers' modules (Fastify, puppeteer-core, …) cost every other verb a second to load.
        await (await import('./main.js')).serve({ ...config, services });
        return 0;
      }
      case 'accounts':
        return await accountsCommand(rest, config);
      case 'keys':
        return await keysCommand(rest, config);
      case 'backup': {
        const to = need(parseVerb('backup', rest).to, 'to');
        const { bytes, source } = await (await import('./store/backup.js')).backupSqliteStore(config, to);
        console.log(`wrote ${to} (${bytes} bytes), a copy of ${source}`);
        return 0;
      }
      case 'webhooks':
        return await webhooksCommand(rest, config);
      case 'secrets':
        parseVerb(verbOf('secrets', rest[0]), rest.slice(1));
        return await (await import('./cli-secrets.js')).secretsRotate(config);
      case 'render':
        // A document's PDF work runs here as in the service: in its workers, within PDF_WORK_* of the environment.
        (await import('./pdf/engine.js')).configurePdfEngineFrom(config);
        return await (await import('./render/index.js')).runRenderCli(rest, config);
      case 'assemble':
        (await import('./pdf/engine.js')).configurePdfEngineFrom(config);
        return await (await import('./assemble/cli.js')).runAssembleCli(rest, config);
      case 'fetch':
        return await (await import('./metadata/cli.js')).runFetchCli(rest, config);
      default:
        throw new UsageError(`unknown command "${command}" (see pageworks --help)`);
    }
  } catch (err) {
    return reportCliError('pageworks', err);
  }
}

const exitCode = await runCli(process.argv.slice(2));
// `serve` returns only after shutdown; other commands end here.
process.exitCode = exitCode;
