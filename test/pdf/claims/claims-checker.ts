/**
 * veraPDF for the claims runner, fed while the renders go on: claimed PDFs queue by flavour, and a queue
 * goes to its own JVM when it is full (`batch`) or when a JVM is free and it holds `minBatch` files; `drain`
 * sends what is left, several JVMs at once. A JVM costs about 2 s of CPU to start and then ~50 ms a file:
 * batches are large, and the JVMs keep pace with the renders so that little is left when the last one ends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verapdfFolderAsync } from '../verapdf.js';

/** How the checker runs: files per JVM, JVMs at once while rendering and at the end, and where results go. */
export interface CheckerOptions {
  /** Where the batches' folders are made (the caller removes it). */
  dir: string;
  batch: number;
  /** Files a queue needs before a free JVM takes it while renders still come (fewer wait for more). */
  minBatch: number;
  /** JVMs at once while renders still come (they share the cores with Chromium). */
  jvmsWhileRendering: number;
  /** JVMs at once once every render is in: the cores are theirs. */
  jvmsAtEnd: number;
  /** The failed rules of each file, by the flavour and key it was added with (empty: compliant). */
  onResult(flavour: string, key: string, rules: string[]): void;
}

/** A checker's figures: JVMs started and the CPU-side wall time they ran, summed. */
export interface CheckerFigures {
  jvms: number;
  jvmMs: number;
}

/** A flavour's files in their own folder, for one JVM. */
interface Batch {
  flavour: string;
  folder: string;
  keys: string[];
}

/** Queues claimed PDFs by flavour and validates them in batches, one JVM per batch. */
export class ClaimsChecker {
  readonly figures: CheckerFigures = { jvms: 0, jvmMs: 0 };
  /** Each flavour's open batch: files are written straight into the folder its JVM will read. */
  private readonly open = new Map<string, { folder: string; keys: string[] }>();
  private readonly waiting: Batch[] = [];
  private readonly running = new Set<Promise<void>>();
  private ending = false;
  private folders = 0;
  private failure: unknown;

  constructor(private readonly opts: CheckerOptions) {}

  /** Writes `pdf` for checking against `flavour`; `key` names it in `onResult`. */
  add(flavour: string, key: string, pdf: Buffer): void {
    let batch = this.open.get(flavour);
    if (!batch) {
      batch = { folder: path.join(this.opts.dir, `batch-${this.folders++}`), keys: [] };
      fs.mkdirSync(batch.folder);
      this.open.set(flavour, batch);
    }
    fs.writeFileSync(path.join(batch.folder, `${key}.pdf`), pdf);
    batch.keys.push(key);
    if (batch.keys.length >= this.opts.batch) this.send(flavour);
    this.start();
  }

  /** Validates everything still queued, the largest queues first, and waits for every JVM. */
  async drain(): Promise<CheckerFigures> {
    this.ending = true;
    const left = [...this.open.entries()].sort((a, b) => b[1].keys.length - a[1].keys.length);
    for (const [flavour] of left) this.send(flavour);
    this.start();
    while (this.running.size > 0) await Promise.race(this.running);
    if (this.failure) throw this.failure;
    return this.figures;
  }

  /** Closes a flavour's open batch: it waits for a JVM, and the flavour's next file opens a new one. */
  private send(flavour: string): void {
    const batch = this.open.get(flavour);
    if (!batch) return;
    this.open.delete(flavour);
    this.waiting.push({ flavour, ...batch });
  }

  /** Starts waiting batches while there is room for another JVM; a free JVM takes the largest queue worth one. */
  private start(): void {
    const limit = this.ending ? this.opts.jvmsAtEnd : this.opts.jvmsWhileRendering;
    while (this.running.size < limit) {
      if (this.waiting.length === 0) {
        const [largest] = [...this.open.entries()].sort((x, y) => y[1].keys.length - x[1].keys.length);
        if (!largest || largest[1].keys.length < this.opts.minBatch) return;
        this.send(largest[0]);
      }
      const { flavour, folder, keys } = this.waiting.shift() as Batch;
      const started = performance.now();
      this.figures.jvms += 1;
      const run: Promise<void> = verapdfFolderAsync(folder, flavour)
        .then((results) => {
          for (const key of keys) this.opts.onResult(flavour, key, results[key] as string[]);
        })
        .catch((e: unknown) => {
          this.failure ??= e;
        })
        .finally(() => {
          this.figures.jvmMs += performance.now() - started;
          fs.rmSync(folder, { recursive: true, force: true });
          this.running.delete(run);
          this.start();
        });
      this.running.add(run);
    }
  }
}

/**
 * The checker of a claims run: batches of `batchSize`; while requests come, one JVM, which leaves Chromium
 * most of a 2-core machine; at the end every core is veraPDF's.
 */
export function runChecker(dir: string, batchSize: number, onResult: CheckerOptions['onResult']): ClaimsChecker {
  return new ClaimsChecker({
    dir,
    batch: batchSize,
    minBatch: Math.ceil(batchSize / 4),
    jvmsWhileRendering: 1,
    jvmsAtEnd: os.availableParallelism(),
    onResult,
  });
}
