/**
 * The PDF workers: up to `workers` threads, each running one operation at a time with a V8 heap of at
 * most `maxHeapMb`; operations wait in order for a free one. An operation that overruns its deadline has
 * its thread terminated (V8 stops it mid-loop; the event loop never waited on it), and the next
 * operation gets a fresh thread. Production runs the compiled worker-entry.js; tests run the TypeScript
 * through tsx, registered in the thread before the entry is imported.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { asBuffers, type CrossedError, crossedError, type FromWorker, type ToWorker } from './messages.js';

/** The limits of the PDF work (PDF_WORKERS, PDF_WORK_TIMEOUT_MS, PDF_WORK_MAX_HEAP_MB). */
export interface PdfWorkLimits {
  workers: number;
  timeoutMs: number;
  maxHeapMb: number;
}

/** How an operation ended when it did not end by itself. */
export type Overrun = { limit: 'time'; ms: number; at: string | null } | { limit: 'memory'; at: string | null };

/** An operation as the pool runs it. */
export interface PoolJob {
  op: string;
  args: unknown;
  timeoutMs: number;
  /** The service's handlers for the operation's call backs. */
  calls: Record<string, (arg: unknown) => Promise<unknown>>;
  resolve(value: unknown): void;
  /** The operation threw (its error as it crossed), or overran, or its worker died. */
  reject(reason: { error: CrossedError } | { overrun: Overrun } | { lost: string }): void;
}

interface Running {
  job: PoolJob;
  id: number;
  /** Where the operation is (the part it reads). */
  at: string | null;
  timer?: NodeJS.Timeout;
  left: number;
  since: number;
  /** Call backs being answered by the service: the deadline waits meanwhile. */
  calling: number;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  running?: Running;
  ended: boolean;
}

/** Where the worker's code is, and how to start it from here. */
function workerSource(): { source: string | URL; eval: boolean } {
  const ownUrl = import.meta.url;
  if (!ownUrl.endsWith('.ts')) return { source: new URL('./worker-entry.js', ownUrl), eval: false };
  const entry = new URL('./worker-entry.ts', ownUrl).href;
  // tsx's ESM entry (its package exports one for `import`, another for `require`).
  const tsx = new URL('./dist/esm/api/index.mjs', pathToFileURL(createRequire(ownUrl).resolve('tsx/package.json'))).href;
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return { source: code, eval: true };
}

/** Runs operations in worker threads, ending any that overruns. */
export class WorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: PoolJob[] = [];
  private nextId = 1;
  private closed = false;
  /** Keep every worker started (replaced as soon as one ends), so no operation waits for a thread's start. */
  private kept = false;

  constructor(private readonly limits: PdfWorkLimits) {}

  /** Queues `job`; it starts on the first free worker. */
  submit(job: PoolJob): void {
    if (this.closed) {
      job.reject({ lost: 'the service is stopping' });
      return;
    }
    this.queue.push(job);
    this.dispatch();
  }

  /** Starts every worker now and keeps them started: no operation then pays for a thread's start. */
  warm(): void {
    if (this.closed) return;
    this.kept = true;
    while (this.slots.size < this.limits.workers) this.spawn();
  }

  /** Threads alive now (busy or idle). */
  get size(): number {
    return this.slots.size;
  }

  /** Ends every worker; queued and running operations are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject({ lost: 'the service is stopping' });
    await Promise.all([...this.slots].map((slot) => this.end(slot, { lost: 'the service is stopping' })));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const free = [...this.slots].find((s) => s.ready && !s.running && !s.ended);
      if (!free) {
        if (this.slots.size < this.limits.workers) this.spawn();
        return;
      }
      this.start(free, this.queue.shift() as PoolJob);
    }
  }

  private spawn(): void {
    const { source, eval: isCode } = workerSource();
    const worker = new Worker(source, {
      eval: isCode,
      workerData: { timeoutMs: this.limits.timeoutMs },
      resourceLimits: { maxOldGenerationSizeMb: this.limits.maxHeapMb },
    });
    // A worker never keeps the process alive on its own (an operation's timer does while it runs).
    worker.unref();
    const slot: Slot = { worker, ready: false, ended: false };
    this.slots.add(slot);
    worker.on('message', (message: FromWorker) => this.onMessage(slot, message));
    worker.on('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      const at = slot.running?.at ?? null;
      void this.end(
        slot,
        code === 'ERR_WORKER_OUT_OF_MEMORY' ? { overrun: { limit: 'memory', at } } : { error: crossedError(error) },
      );
    });
    worker.on('exit', () => void this.end(slot, { lost: 'the PDF worker exited' }));
  }

  private start(slot: Slot, job: PoolJob): void {
    const running: Running = { job, id: this.nextId++, at: null, left: job.timeoutMs, since: Date.now(), calling: 0 };
    slot.running = running;
    this.arm(slot, running);
    const message: ToWorker = { type: 'run', id: running.id, op: job.op, args: job.args };
    slot.worker.postMessage(message);
  }

  private arm(slot: Slot, running: Running): void {
    running.since = Date.now();
    running.timer = setTimeout(
      () => {
        void this.end(slot, { overrun: { limit: 'time', ms: running.job.timeoutMs, at: running.at } });
      },
      Math.max(0, running.left),
    );
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.dispatch();
      return;
    }
    const running = slot.running;
    if (!running || running.id !== message.id) return;
    if (message.type === 'progress') running.at = message.label;
    else if (message.type === 'call') void this.answer(slot, running, message.call, message.name, message.arg);
    else {
      clearTimeout(running.timer);
      slot.running = undefined;
      if (message.type === 'done') running.job.resolve(asBuffers(message.value));
      else running.job.reject({ error: message.error });
      this.dispatch();
    }
  }

  /** Runs a call back on the service, its time not counted against the operation's deadline. */
  private async answer(slot: Slot, running: Running, call: number, name: string, arg: unknown): Promise<void> {
    if (running.calling++ === 0) {
      clearTimeout(running.timer);
      running.left -= Date.now() - running.since;
    }
    let reply: ToWorker;
    try {
      const handler = running.job.calls[name];
      if (!handler) throw new Error(`the service has no handler "${name}"`);
      reply = { type: 'answer', id: running.id, call, value: await handler(asBuffers(arg)) };
    } catch (error) {
      reply = { type: 'answer', id: running.id, call, error: crossedError(error) };
    }
    if (slot.running !== running || slot.ended) return;
    if (--running.calling === 0) this.arm(slot, running);
    slot.worker.postMessage(reply);
  }

  /** Ends a worker (its operation, if any, rejected with `reason`) and lets the queue go on with a fresh one. */
  private async end(slot: Slot, reason: Parameters<PoolJob['reject']>[0]): Promise<void> {
    if (slot.ended) return;
    slot.ended = true;
    this.slots.delete(slot);
    const running = slot.running;
    slot.running = undefined;
    if (running) {
      clearTimeout(running.timer);
      running.job.reject(reason);
    }
    // A worker that could not even start will not start the next time either: fail what waits for one.
    if (!slot.ready) for (const job of this.queue.splice(0)) job.reject(reason);
    else if (this.kept && !this.closed) this.spawn();
    this.dispatch();
    await slot.worker.terminate();
  }
}
