/**
 * A PDF worker thread: runs the operations of ops.ts one at a time as the service sends them, and sends
 * back each result, error, progress report and call back. The service ends the thread when an operation
 * overruns its deadline or memory; nothing here has to cooperate for that.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { limitQpdfRuns } from '../qpdf.js';
import { asBuffers, crossedError, type FromWorker, rebuiltError, type ToWorker, transferables } from './messages.js';
import { OPS, type OpContext } from './ops.js';

const port = parentPort;
if (!port) throw new Error('worker-entry.ts runs in a worker thread');
// A qpdf child is a process of its own: ending this thread would not end it, its own deadline does.
limitQpdfRuns((workerData as { timeoutMs: number }).timeoutMs);

const send = (message: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
/** Call backs waiting for the service's answer, by their number. */
const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let nextCall = 1;

async function run(id: number, op: string, args: unknown): Promise<void> {
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
    const value = await fn(asBuffers(args), ctx);
    send({ type: 'done', id, value }, transferables(value));
  } catch (error) {
    send({ type: 'failed', id, error: crossedError(error) });
  }
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'run') {
    void run(message.id, message.op, message.args);
    return;
  }
  const pending = waiting.get(message.call);
  if (!pending) return;
  waiting.delete(message.call);
  if (message.error !== undefined) pending.reject(rebuiltError(message.error));
  else pending.resolve(asBuffers(message.value));
});

// Loaded: the service starts an operation's clock from here, not from the thread's start.
send({ type: 'ready' });
