/**
 * `pageworks render IN.html [-o OUT.pdf] [--strict] [--format … --landscape --print-background --scale …
 * --margin … --width … --height …]`: a one-off local render through the same validation, pool and renderer
 * as the API. What the document could not get is printed on stderr, one warning a line; `--strict` makes
 * any warning a failure (exit 1, no PDF written), as `Prefer: handling=strict` does for the API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cliCommand, isFlagOf, synopsis, unknownOptionMessage } from '../cli-commands.js';
import { reportCliError, terminalLine, UsageError } from '../cli-errors.js';
import type { Config } from '../config.js';
import { RenderError } from '../errors.js';
import { createEgressPolicy } from '../net/policy.js';
import type { ReportEntry } from '../report/report.js';
import { BrowserPool } from './pool/browser-pool.js';
import { claimsHeaderValue } from './report/claims-header.js';
import { toPrintParams } from './request/options.js';
import { validateRenderRequest } from './request/schema.js';
import { incompleteError } from './request/strict.js';

const COMMAND = cliCommand('render');
const USAGE = `usage: ${synopsis(COMMAND)}`;

interface CliRequest {
  input: string;
  output: string;
  options: Record<string, unknown>;
  strict: boolean;
}

/** Parses the arguments into the same options object the API takes (validated later, by the same code). */
export function parseRenderArgs(args: string[]): CliRequest {
  const options: Record<string, unknown> = {};
  const margin: Record<string, string> = {};
  let input: string | undefined;
  let output: string | undefined;
  let strict = false;
  const value = (i: number, flag: string): string => {
    const v = args[i + 1];
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  const seen = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    // A flag given twice is a mistake to report, not a silent "last one wins" (values are skipped by i++).
    const flag = arg === '-o' ? '--output' : arg;
    if (flag?.startsWith('-')) {
      if (seen.has(flag)) throw new UsageError(`${flag} given more than once`);
      seen.add(flag);
    }
    // The table (cli-commands.ts) is the list of flags: one handled here but not declared there is refused.
    if (arg.startsWith('-') && !isFlagOf(COMMAND, arg)) throw new UsageError(unknownOptionMessage(COMMAND, arg));
    switch (arg) {
      case '-o':
      case '--output':
        output = value(i++, arg);
        break;
      case '--format':
        options.format = value(i++, arg);
        break;
      case '--strict':
        strict = true;
        break;
      case '--landscape':
        options.landscape = true;
        break;
      case '--print-background':
        options.printBackground = true;
        break;
      case '--scale': {
        const raw = value(i++, arg);
        // A non-number goes through as the string so validation names it like the API would.
        options.scale = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
        break;
      }
      case '--width':
      case '--height':
        options[arg.slice(2)] = value(i++, arg);
        break;
      case '--margin': {
        const v = value(i++, arg);
        for (const side of ['top', 'right', 'bottom', 'left']) margin[side] = v;
        break;
      }
      case '--margin-top':
      case '--margin-right':
      case '--margin-bottom':
      case '--margin-left':
        margin[arg.slice('--margin-'.length)] = value(i++, arg);
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(unknownOptionMessage(COMMAND, arg));
        if (input !== undefined) throw new UsageError(`only one input file (got ${input} and ${arg})`);
        input = arg;
    }
  }
  if (input === undefined) throw new UsageError(`missing IN.html (${USAGE})`);
  if (Object.keys(margin).length > 0) options.margin = margin;
  output ??= path.join(path.dirname(input), `${path.basename(input, path.extname(input))}.pdf`);
  return { input, output, options, strict };
}

/**
 * A warning as its line reads: a conformance entry first names the profile the PDF does not claim and the
 * clause (a document that declares two profiles can get the same message for each).
 */
function warningText(w: ReportEntry): string {
  return w.kind === 'conformance' ? `${w.profile} not claimed (${w.clause}): ${w.message}` : w.message;
}

/** Runs `pageworks render …`; returns the exit code (errors are one line on stderr). */
export async function runRenderCli(args: string[], config: Config): Promise<number> {
  let pool: BrowserPool | undefined;
  try {
    const request = parseRenderArgs(args);
    const body = validateRenderRequest({ html: readInput(request.input), options: request.options });
    const params = toPrintParams(body.options);
    pool = await BrowserPool.start({
      policy: createEgressPolicy({ allow: config.egressAllow }),
      concurrency: 1,
      queueLimit: 0,
      timeoutMs: config.renderTimeoutMs,
      idleMaxMs: config.renderIdleMaxMs,
      executablePath: config.chromiumPath,
    });
    const { pdf, warnings, claims } = await pool.render('cli', body.html, params);
    // One line each, whatever the document's text holds: no control character reaches the terminal.
    for (const w of warnings) process.stderr.write(`pageworks render: warning: ${terminalLine(warningText(w))}\n`);
    if (request.strict && warnings.length > 0) throw incompleteError(warnings, 'each is on a line above');
    // `-o -`: the PDF on stdout (a pipe to another program), as the usual Unix tools read it.
    if (request.output === '-')
      await new Promise<void>((resolve, reject) => process.stdout.write(pdf, (e) => (e ? reject(e) : resolve())));
    else fs.writeFileSync(request.output, pdf);
    // The standards the PDF claims, as X-Render-Claims names them; no line when it claims none.
    const claimed = claimsHeaderValue(claims);
    if (claimed !== undefined) process.stderr.write(`pageworks render: claims ${claimed}\n`);
    process.stderr.write(`wrote ${request.output === '-' ? 'the PDF to stdout' : request.output} (${pdf.length} bytes)\n`);
    return 0;
  } catch (err) {
    return reportCliError('pageworks render', asCliError(err));
  } finally {
    await pool?.close();
  }
}

/** The input document; a file that cannot be read is an input error (exit 2), not a failed render. */
function readInput(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Options the API would refuse with 400/413 are input errors; a render that failed or timed out is not. */
function asCliError(err: unknown): unknown {
  if (!(err instanceof RenderError)) return err;
  const input = err.code === 'INVALID_REQUEST' || err.code === 'PAYLOAD_TOO_LARGE';
  const message = `${err.code}: ${err.message}`;
  return input ? new UsageError(message) : new Error(message);
}
