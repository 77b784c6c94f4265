/**
 * The PDF workers: up to `workers` child processes, each running one operation at a time; operations
 * wait in order for a free one. An operation that overruns its deadline, or whose process grows past
 * `maxMemoryMb` resident (read from /proc while it runs; its V8 heap is capped to the same), has its
 * process killed (SIGKILL ends anything, native code included; the event loop never waited on it), and
 * the next operation gets a fresh one. Processes, not worker threads: a thread that reaches its heap
 * limit while allocating a Buffer aborts the whole service (V8's FatalProcessOutOfMemory), and a thread's
 * Buffers cannot be measured apart from the service's. worker-process.ts starts a worker; an operation's
 * large bytes cross through files (bytes-in-file.ts), removed once read, or once a killed worker is gone.
 */
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { type ByteFiles, byteFiles, releaseFiles } from './bytes-directory.js';
import { type BytesInFile, bytesInFile, readBytes, takeBytes, writeBytes } from './bytes-in-file.js';
import { asBuffers, type CrossedError, crossedError, type FromWorker, type ToWorker } from './messages.js';
import { type PdfWorkLimits, residentMb, startWorker } from './worker-process.js';

export type { PdfWorkLimits } from './worker-process.js';

/** How an operation ended when it did not end by itself. */
export type Overrun = { limit: 'time'; ms: number; at: string | null } | { limit: 'memory'; at: string | null };

/** An operation as the pool runs it. */
export interface PoolJob {
  op: string;
  args: unknown;
  timeoutMs: number;
  /** The service's handlers for the operation's call backs. */
  calls: Record<string, (arg: unknown) => Promise<unknown>>;
  /** The result, and how long the operation itself took in the worker (the rest of the wait is the crossing). */
  resolve(value: unknown, workMs: number): void;
  /** The operation threw (its error as it crossed), or overran, or its worker died. */
  reject(reason: { error: CrossedError } | { overrun: Overrun } | { lost: string }): void;
}

interface Running {
  job: PoolJob;
  id: number;
  /** Where the operation is (the part it reads). */
  at: string | null;
  timer?: NodeJS.Timeout;
  watch?: NodeJS.Timeout;
  left: number;
  since: number;
  /** Call backs being answered by the service: the deadline waits meanwhile. */
  calling: number;
  /** The files its bytes go through (arguments in, result out); none where no directory can be made. */
  files?: ByteFiles;
  /** Its arguments' bytes being written to `files.in`. */
  writing?: Promise<void>;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  running?: Running;
  ended: boolean;
  /** The end of its stderr: how V8 says it ran out of heap. */
  stderr: string;
}

/** How often a running operation's resident memory is read. */
const MEMORY_CHECK_MS = 50;

/** Runs operations in worker processes, ending any that overruns. */
export class WorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: PoolJob[] = [];
  private nextId = 1;
  private closed = false;
  /** Keep every worker started (replaced as soon as one ends), so no operation waits for a process's start. */
  private kept = false;
  /** Operations queued or running, and the timer that keeps the event loop alive while there are any. */
  private pending = 0;
  private keepAlive?: NodeJS.Timeout;
  constructor(private readonly limits: PdfWorkLimits) {}

  /** Queues `job`; it starts on the first free worker. */
  submit(job: PoolJob): void {
    if (this.closed) {
      job.reject({ lost: 'the service is stopping' });
      return;
    }
    this.queue.push(this.held(job));
    this.dispatch();
  }

  /**
   * `job`, keeping the event loop alive until it settles: the workers themselves are unreferenced (an idle
   * one must not keep a finished process alive), so a caller with nothing else pending (the CLI, a bench)
   * would otherwise see its process end while it waits for a worker to start.
   */
  private held(job: PoolJob): PoolJob {
    if (this.pending++ === 0) this.keepAlive = setInterval(() => undefined, 1 << 30);
    const settle = (): void => {
      if (--this.pending === 0) clearInterval(this.keepAlive);
    };
    return {
      ...job,
      resolve: (value, workMs) => {
        settle();
        job.resolve(value, workMs);
      },
      reject: (reason) => {
        settle();
        job.reject(reason);
      },
    };
  }

  /** Starts every worker now and keeps them started: no operation then pays for a process's start. */
  warm(): void {
    if (this.closed) return;
    this.kept = true;
    while (this.slots.size < this.limits.workers) this.spawn();
  }

  /** The worker processes alive now (busy or idle). */
  get pids(): number[] {
    return [...this.slots].map((s) => s.child.pid).filter((pid): pid is number => pid !== undefined);
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
    const child = startWorker(this.limits);
    const slot: Slot = { child, ready: false, ended: false, stderr: '' };
    this.slots.add(slot);
    child.stderr?.on('data', (d: Buffer) => (slot.stderr = (slot.stderr + d.toString()).slice(-2000)));
    (child.stderr as Socket | null)?.unref();
    child.on('message', (message: FromWorker) => this.onMessage(slot, message));
    child.on('error', (error) => void this.end(slot, { error: crossedError(error) }));
    child.on('exit', () => {
      const at = slot.running?.at ?? null;
      // V8 ends a process whose heap outgrew --max-old-space-size after saying so on stderr.
      if (/heap out of memory|Allocation failed/i.test(slot.stderr)) void this.end(slot, { overrun: { limit: 'memory', at } });
      else void this.end(slot, { lost: 'the PDF worker exited' });
    });
  }

  private start(slot: Slot, job: PoolJob): void {
    const id = this.nextId++;
    let files: ByteFiles | undefined;
    try {
      files = byteFiles();
    } catch {
      // No writable $TMPDIR: the operation's bytes all cross inline, slower, but it runs.
    }
    const running: Running = { job, id, at: null, left: job.timeoutMs, since: Date.now(), calling: 0, files };
    slot.running = running;
    this.arm(slot, running);
    running.watch = setInterval(() => {
      const mb = residentMb(slot.child.pid);
      if (mb !== undefined && mb > this.limits.maxMemoryMb) void this.end(slot, { overrun: { limit: 'memory', at: running.at } });
    }, MEMORY_CHECK_MS);
    const taken = files && takeBytes(job.args, this.limits.inlineMaxBytes);
    if (!files || !taken) {
      slot.child.send({ type: 'run', id, op: job.op, args: job.args, out: files?.out } satisfies ToWorker);
      return;
    }
    running.writing = writeBytes(files.in, taken);
    const send = (message: ToWorker): void => {
      if (slot.running === running && !slot.ended) slot.child.send(message);
    };
    running.writing.then(
      () => send({ type: 'run', id, op: job.op, args: taken.value, bytes: bytesInFile(taken, files.in), out: files.out }),
      // The file cannot take them ($TMPDIR full): they cross inline.
      () => send({ type: 'run', id, op: job.op, args: job.args, out: files.out }),
    );
  }

  /**
   * The worker is done with `running`: its clocks stop, and its files are let go (`remove`d when it did not
   * end well; a worker that finished removed its input, and its output is removed as it is read).
   */
  private release(slot: Slot, running: Running, files: 'keep' | 'remove'): Promise<void> {
    this.stopClocks(running);
    if (slot.running === running) slot.running = undefined;
    return running.files ? releaseFiles(running.files, files === 'remove') : Promise.resolve();
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
    else if (message.type === 'failed') {
      void this.release(slot, running, 'remove');
      running.job.reject({ error: message.error });
      this.dispatch();
    } else {
      if (!message.bytes) {
        void this.release(slot, running, 'keep');
        running.job.resolve(asBuffers(message.value), message.workMs);
      } else {
        this.stopClocks(running);
        slot.running = undefined;
        void this.readResult(running, message.value, message.bytes, message.workMs);
      }
      this.dispatch();
    }
  }

  /** Resolves `running` with its result, whose bytes the worker wrote to a file. */
  private async readResult(running: Running, value: unknown, bytes: BytesInFile, workMs: number): Promise<void> {
    try {
      running.job.resolve(asBuffers(await readBytes(value, bytes)), workMs);
    } catch (error) {
      running.job.reject({ lost: `its result could not be read back (${(error as Error).message})` });
    } finally {
      if (running.files) await releaseFiles(running.files, false);
    }
  }

  private stopClocks(running: Running): void {
    clearTimeout(running.timer);
    clearInterval(running.watch);
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
    slot.child.send(reply);
  }

  /** Ends a worker (its operation, if any, rejected with `reason`) and lets the queue go on with a fresh one. */
  private async end(slot: Slot, reason: Parameters<PoolJob['reject']>[0]): Promise<void> {
    if (slot.ended) return;
    slot.ended = true;
    this.slots.delete(slot);
    const running = slot.running;
    slot.running = undefined;
    if (running) {
      this.stopClocks(running);
      running.job.reject(reason);
    }
    // A worker that could not even start will not start the next time either: fail what waits for one.
    if (!slot.ready) for (const job of this.queue.splice(0)) job.reject(reason);
    else if (this.kept && !this.closed) this.spawn();
    this.dispatch();
    if (slot.child.exitCode === null && slot.child.signalCode === null) {
      const exited = new Promise((resolve) => slot.child.once('exit', resolve));
      // Held until it is gone: a shutdown that awaits this must not find the event loop empty meanwhile.
      slot.child.ref();
      slot.child.kill('SIGKILL');
      await exited;
    }
    // Its files are removed once it is gone (until then it may still be writing one) and written.
    if (running) {
      await running.writing?.catch(() => undefined);
      if (running.files) await releaseFiles(running.files, true);
    }
  }
}
