/**
 * A PDF worker process: runs the operations of ops.ts one at a time as the service sends them, and sends
 * back each result, error, progress report and call back (large bytes both ways through files:
 * bytes-in-file.ts). The service kills the process when an
 * operation overruns its deadline or memory; nothing here has to cooperate for that. A watchdog thread
 * ends the process when the service is gone (killed outright), even while an operation holds this thread.
 */
import { Worker } from 'node:worker_threads';
import { examineInvoice } from '../factur-x/check-invoice.js';
import { limitQpdfRuns } from '../qpdf.js';
import { type BytesInFile, bytesInFile, readBytesSync, type TakenBytes, takeBytes, writeBytesSync } from './bytes-in-file.js';
import { asBuffers, crossedError, type FromWorker, type RunMessage, rebuiltError, type ToWorker } from './messages.js';
import { OPS, type OpContext } from './ops.js';

if (!process.send) throw new Error('worker-entry runs as a child process of the service');
const limits = JSON.parse(process.argv[2] ?? '{}') as { timeoutMs?: number; inlineMaxBytes?: number };
// A qpdf child is a process of its own: killing this one would not end it, its own deadline does.
if (limits.timeoutMs) limitQpdfRuns(limits.timeoutMs);

const parent = process.ppid;
new Worker(`setInterval(() => { if (process.ppid !== ${parent}) process.kill(process.pid, 'SIGKILL'); }, 500);`, {
  eval: true,
}).unref();

const send = (message: FromWorker): void => {
  process.send?.(message);
};
/** Call backs waiting for the service's answer, by their number. */
const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let nextCall = 1;

/** Where `taken`'s bytes now are, or undefined when the file cannot take them ($TMPDIR full): they cross inline. */
function writtenTo(out: string, taken: TakenBytes): BytesInFile | undefined {
  try {
    writeBytesSync(out, taken);
    return bytesInFile(taken, out);
  } catch {
    return undefined;
  }
}

async function run({ id, op, args, bytes, out }: RunMessage): Promise<void> {
  const ctx: OpContext = {
    progress: (label) => send({ type: 'progress', id, label }),
    call: (name, arg) =>
      new Promise((resolve, reject) => {
        const call = nextCall++;
        waiting.set(call, { resolve, reject });
        send({ type: 'call', id, call, name, arg });
      }),
  };
  try {
    const fn = (OPS as Record<string, (args: unknown, ctx: OpContext) => unknown>)[op];
    if (!fn) throw new Error(`no PDF operation "${op}"`);
    const input = asBuffers(bytes ? readBytesSync(args, bytes) : args);
    const started = performance.now();
    const value = await fn(input, ctx);
    const workMs = performance.now() - started;
    const taken = out ? takeBytes(value, limits.inlineMaxBytes) : undefined;
    const through = out && taken ? writtenTo(out, taken) : undefined;
    if (taken && through) send({ type: 'done', id, value: taken.value, bytes: through, workMs });
    else send({ type: 'done', id, value, workMs });
  } catch (error) {
    send({ type: 'failed', id, error: crossedError(error) });
  }
}

process.on('message', (message: ToWorker) => {
  if (message.type === 'run') {
    void run(message);
    return;
  }
  const pending = waiting.get(message.call);
  if (!pending) return;
  waiting.delete(message.call);
  if (message.error !== undefined) pending.reject(rebuiltError(message.error));
  else pending.resolve(asBuffers(message.value));
});
// The service is gone (its channel closed): nothing will ask for work again.
process.on('disconnect', () => process.exit(0));

/** The smallest EN 16931 document: enough to load libxml2 and that level's schema, whatever it then says of it. */
const WARM_UP_XML = Buffer.from(
  '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" ' +
    'xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">' +
    '<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:cen.eu:en16931:2017</ram:ID>' +
    '</ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext></rsm:CrossIndustryInvoice>',
);

// The first invoice check of a process loads the schema (about 0.4 s, then 30 ms a check): done before
// 'ready', so no customer's deadline pays for it and a loaded machine cannot turn it into a withheld
// Factur-X claim. Only the built worker (worker-entry.js) does it. The suite's workers (its bundle, .mjs, or
// this file under tsx) leave it to the first check: the suite starts a few hundred workers and checks
// invoices in a few, and under tsx compiling the checker's modules takes a worker from 95 to 265 MiB, past
// the tests' memory bounds.
if (import.meta.url.endsWith('.js')) await examineInvoice(WARM_UP_XML, 'EN 16931').catch(() => undefined);

// Loaded: the service starts an operation's clock from here, not from the process's start.
send({ type: 'ready' });
