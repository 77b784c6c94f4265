/**
 * `pageworks assemble BODY.json|- [-o OUT.pdf] [--stamp STAMP.html] [--split parts|N] [--strict]`: a one-off
 * local assembly, no server, of the body POST /v1/assemble takes (read from a file, or stdin for `-`),
 * through the same validation, pool and PDF steps as the API. `--stamp` adds a stamp (the file's HTML, over
 * every page) and `--split` a split, as the body's `stamps` and `split` would. A `{"file": "terms.pdf"}` part
 * is the file of that name beside the body (the API takes it uploaded beside the body), read from disk as
 * the service reads an upload. Warnings go to stderr, one a line, then what the PDF claims; `--strict`
 * makes any warning a failure (exit 1).
 */
import fs from 'node:fs';
import path from 'node:path';
import { cliCommand, synopsis, unknownOptionMessage, verbHelp } from '../cli-commands.js';
import { reportCliError, terminalLine, UsageError } from '../cli-errors.js';
import type { Config } from '../config.js';
import { RenderError } from '../errors.js';
import { createPinnedAgent } from '../net/pinned-agent.js';
import { createEgressPolicy } from '../net/policy.js';
import { BrowserPool, claimsHeaderValue, incompleteError, type ReportEntry } from '../render/index.js';
import { runAssembly } from './assembly.js';
import { PDF_STEPS } from './default-steps.js';
import type { Uploads } from './multipart-upload.js';
import { ASSEMBLE_JOB_MAX_PARTS, UPLOADED_NAMES } from './schema.js';
import { validateAssembleRequest } from './validate-request.js';

const COMMAND = cliCommand('assemble');
const USAGE = `usage: ${synopsis(COMMAND)}`;

interface CliRequest {
  input: string;
  output: string;
  strict: boolean;
  stamps: string[];
  split?: 'parts' | { every: number };
}

/** Parses the arguments; throws UsageError (exit 2). */
export function parseAssembleArgs(args: string[]): CliRequest | 'help' {
  let input: string | undefined;
  let output: string | undefined;
  let strict = false;
  const stamps: string[] = [];
  let split: CliRequest['split'];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '-o' || arg === '--output') {
      if (output !== undefined) throw new UsageError(`${arg} given more than once`);
      output = args[++i];
      if (output === undefined || (output.startsWith('-') && output !== '-')) throw new UsageError(`${arg} needs a value`);
    } else if (arg === '--stamp') {
      const file = args[++i];
      if (file === undefined || file.startsWith('-')) throw new UsageError('--stamp needs a value (an HTML file)');
      stamps.push(file);
    } else if (arg === '--split') {
      const value = args[++i];
      if (value === 'parts') split = 'parts';
      else if (value !== undefined && /^[1-9][0-9]{0,6}$/.test(value)) split = { every: Number(value) };
      else throw new UsageError(`--split needs "parts" or a number of pages of at least 1, got ${JSON.stringify(value ?? '')}`);
    } else if (arg === '--strict') strict = true;
    else if (arg.startsWith('-') && arg !== '-') throw new UsageError(unknownOptionMessage(COMMAND, arg));
    else if (input !== undefined) throw new UsageError(`only one body file (got ${input} and ${arg})`);
    else input = arg;
  }
  if (input === undefined) throw new UsageError(`missing BODY.json (${USAGE})`);
  if (output === undefined && input === '-') throw new UsageError('reading the body from stdin: say where the PDF goes with -o');
  output ??= path.join(path.dirname(input), `${path.basename(input, path.extname(input))}.${split ? 'zip' : 'pdf'}`);
  return { input, output, strict, stamps, ...(split ? { split } : {}) };
}

function readBody(input: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(input === '-' ? 0 : input, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${input}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${input === '-' ? 'stdin' : input}: not valid JSON (${(err as Error).message.slice(0, 120)})`);
  }
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * The files `{"file"}` parts name, found beside the body (in the current directory for stdin), as the
 * uploads of a multipart request; their names ride on the body as the route's parser puts them there.
 */
function localFiles(body: Record<string, unknown>, input: string): Uploads {
  const dir = input === '-' ? process.cwd() : path.dirname(path.resolve(input));
  const files: Uploads['files'] = new Map();
  const parts = Array.isArray(body.parts) ? (body.parts as unknown[]) : [];
  for (const [i, part] of parts.entries()) {
    const name = (part as { file?: unknown } | null)?.file;
    if (typeof name !== 'string' || name === '' || files.has(name)) continue;
    const file = path.resolve(dir, name);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch (err) {
      throw new UsageError(
        `parts[${i}].file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    if (!stat.isFile()) throw new UsageError(`parts[${i}].file: ${file} is not a file`);
    files.set(name, { path: file, bytes: stat.size });
  }
  Object.defineProperty(body, UPLOADED_NAMES, { value: new Set(files.keys()), enumerable: false });
  return { dir, files };
}

function warningText(w: ReportEntry): string {
  return w.kind === 'conformance' ? `${w.profile} not claimed (${w.clause}): ${w.message}` : w.message;
}

/** Runs `pageworks assemble …`; returns the exit code (errors are one line on stderr). */
export async function runAssembleCli(args: string[], config: Config): Promise<number> {
  let pool: BrowserPool | undefined;
  const agent = createPinnedAgent({ connectTimeoutMs: 10_000 });
  try {
    const request = parseAssembleArgs(args);
    if (request === 'help') {
      process.stdout.write(`${verbHelp(['assemble', '--help'])}\n`);
      return 0;
    }
    const given = readBody(request.input);
    let uploads: Uploads | undefined;
    if (given !== null && typeof given === 'object' && !Array.isArray(given)) {
      const object = given as Record<string, unknown>;
      uploads = localFiles(object, request.input);
      if (request.stamps.length)
        object.stamps = [
          ...(Array.isArray(object.stamps) ? object.stamps : []),
          ...request.stamps.map((file) => ({ html: readText(file) })),
        ];
      if (request.split) object.split = request.split;
    }
    const body = validateAssembleRequest(given, ASSEMBLE_JOB_MAX_PARTS, 'the most a job takes');
    if (body.sign) throw new UsageError('sign: the certificates are the service’s; sign through POST /v1/assemble');
    const policy = createEgressPolicy({ allow: config.egressAllow });
    pool = await BrowserPool.start({
      policy,
      concurrency: 1,
      queueLimit: 0,
      timeoutMs: config.renderTimeoutMs,
      idleMaxMs: config.renderIdleMaxMs,
      executablePath: config.chromiumPath,
    });
    const { pdf, warnings, claims } = await runAssembly(
      body,
      { pool, policy, agent, fetchTimeoutMs: config.renderTimeoutMs, steps: PDF_STEPS },
      { accountId: 'cli', width: 1, ...(uploads ? { uploads } : {}) },
    );
    for (const w of warnings) process.stderr.write(`pageworks assemble: warning: ${terminalLine(warningText(w))}\n`);
    if (request.strict && warnings.length > 0) throw incompleteError(warnings, 'each is on a line above');
    if (request.output === '-')
      await new Promise<void>((resolve, reject) => process.stdout.write(pdf, (e) => (e ? reject(e) : resolve())));
    else fs.writeFileSync(request.output, pdf);
    // The standards the PDF claims, as POST /v1/assemble's X-Render-Claims names them; no line when it claims none.
    const claimed = claimsHeaderValue(claims);
    if (claimed !== undefined) process.stderr.write(`pageworks assemble: claims ${claimed}\n`);
    const what = request.split ? 'the zip' : 'the PDF';
    process.stderr.write(`wrote ${request.output === '-' ? `${what} to stdout` : request.output} (${pdf.length} bytes)\n`);
    return 0;
  } catch (err) {
    return reportCliError('pageworks assemble', asCliError(err));
  } finally {
    await pool?.close();
    await agent.close();
  }
}

/** What the API would refuse with 400/413 is an input error (exit 2); a part that failed is not. */
function asCliError(err: unknown): unknown {
  if (!(err instanceof RenderError)) return err;
  const message = `${err.code}: ${err.message}`;
  return err.code === 'INVALID_REQUEST' || err.code === 'PAYLOAD_TOO_LARGE' ? new UsageError(message) : new Error(message);
}
