/**
 * What the soak bench samples from outside the service, the way an operator would: the process tree in
 * /proc (the Node process, every Chromium process under it, renderers, open file descriptors, RSS and PSS)
 * and the service's own `/metrics` (V8 heap, Chromium recycles).
 */
import fs from 'node:fs';

/** One sample of the service's processes. */
export interface ProcessSample {
  nodeRssMb: number;
  /** The Node process's RSS split: anonymous memory (V8's heap, malloc) and file-backed pages (code). */
  nodeRssAnonMb: number;
  nodeRssFileMb: number;
  fds: number;
  /** Summed RSS of every Chromium process (shared pages counted once per process: an upper bound). */
  chromiumRssMb: number;
  /** Summed proportional set size: what the Chromium processes really cost together. */
  chromiumPssMb: number;
  chromiumProcesses: number;
  renderers: number;
  /** Open file descriptors summed over every Chromium process. */
  chromiumFds: number;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses; fields resume after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : Number(fields[1]);
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root` (children, grandchildren, …), from one pass over /proc. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = parentOf(Number(entry));
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const todo = [root];
  while (todo.length > 0) {
    for (const child of children.get(todo.pop()!) ?? []) {
      found.push(child);
      todo.push(child);
    }
  }
  return found;
}

/** A `/proc/<pid>/<file>` field in kB (VmRSS in status, Pss in smaps_rollup), as MB; 0 once the process is gone. */
function kbField(pid: number, file: string, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Samples the service process and the Chromium processes below it. */
export function sampleProcesses(servicePid: number): ProcessSample {
  const chromium = descendants(servicePid).filter((pid) => cmdline(pid).includes('chrom'));
  return {
    nodeRssMb: kbField(servicePid, 'status', 'VmRSS'),
    nodeRssAnonMb: kbField(servicePid, 'status', 'RssAnon'),
    nodeRssFileMb: kbField(servicePid, 'status', 'RssFile'),
    fds: openFds(servicePid),
    chromiumRssMb: chromium.reduce((n, pid) => n + kbField(pid, 'status', 'VmRSS'), 0),
    chromiumPssMb: chromium.reduce((n, pid) => n + kbField(pid, 'smaps_rollup', 'Pss'), 0),
    chromiumProcesses: chromium.length,
    renderers: chromium.filter((pid) => cmdline(pid).includes('--type=renderer')).length,
    chromiumFds: chromium.reduce((n, pid) => n + openFds(pid), 0),
  };
}

/** How many file descriptors `pid` has open (0 once it is gone). */
function openFds(pid: number): number {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** The service's metrics that matter to the soak, read from its Prometheus text. */
export interface MetricsSample {
  heapUsedMb: number;
  /** V8's heap as reserved (used, garbage and free space) and the memory of Buffers and other external objects. */
  heapTotalMb: number;
  externalMb: number;
  /**
   * The reserved heap by V8 space: the young generation (its two semi-spaces grow with the allocation
   * rate, up to --max-semi-space-size each), the old generation, large objects (strings and arrays of
   * more than about 128 KiB each) and compiled code.
   */
  spacesMb: { new: number; old: number; large: number; code: number };
  recycles: number;
}

/** Sums the samples of `name` in Prometheus text whose labels contain `label` (e.g. `reason="memory"`). */
export function metricSum(text: string, name: string, label = ''): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (line.includes(label)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Reads the heap in use (prom-client's default metric) and the Chromium recycles (render count, memory). */
export async function sampleMetrics(renderBase: string): Promise<MetricsSample> {
  const text = await (await fetch(`${renderBase}/metrics`)).text();
  const space = (name: string) => metricSum(text, 'nodejs_heap_space_size_total_bytes', `space="${name}"`) / 1048576;
  const restarts = (reason: string) => metricSum(text, 'pageworks_chromium_restarts_total', `reason="${reason}"`);
  return {
    heapUsedMb: metricSum(text, 'nodejs_heap_size_used_bytes') / 1048576,
    heapTotalMb: metricSum(text, 'nodejs_heap_size_total_bytes') / 1048576,
    externalMb: metricSum(text, 'nodejs_external_memory_bytes') / 1048576,
    spacesMb: {
      new: space('new'),
      old: space('old'),
      large: space('large_object') + space('new_large_object'),
      code: space('code') + space('code_large_object'),
    },
    recycles: restarts('renders') + restarts('memory'),
  };
}

/** Least-squares slope of y over x (NaN with fewer than two distinct x). */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

/** The standard error of that slope (NaN with fewer than three points): about ±2 of it is the noise band. */
export function slopeError(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  const b = slope(points);
  if (n < 3 || Number.isNaN(b)) return Number.NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const residuals = points.reduce((s, [x, y]) => s + (y - my - b * (x - mx)) ** 2, 0);
  const spread = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return Math.sqrt(residuals / (n - 2) / spread);
}
