/**
 * CPU time by process from /proc (Linux only): what the render instance's Node process, its Chromium,
 * the PostgreSQL server (backends, ended ones and writers) and the processes beside it (s3rver, Redis)
 * spent, so that a path's cost per PDF can be told apart by where it is spent, not only in wall time.
 */
import fs from 'node:fs';

/** Linux reports utime and stime in USER_HZ ticks, 100 a second on every architecture Node runs on. */
const TICK_MS = 10;

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
  cpuMs: number;
  /** What its children that have exited (and were waited for) spent. */
  exitedChildrenMs: number;
}

/** One process as /proc tells it, or undefined when it ended while we looked. */
function readProc(pid: number): Proc | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    // After "pid (comm) ": state ppid … with utime and stime the 12th and 13th fields.
    const fields = stat.slice(close + 2).split(' ');
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    return {
      pid,
      ppid: Number(fields[1]),
      comm: stat.slice(stat.indexOf('(') + 1, close),
      cmdline,
      cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
      exitedChildrenMs: (Number(fields[13]) + Number(fields[14])) * TICK_MS,
    };
  } catch {
    return undefined;
  }
}

function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const proc = readProc(Number(entry));
    if (proc) found.push(proc);
  }
  return found;
}

/** Milliseconds of CPU the processes `pids` spent, with what their exited children spent; 0 for one that ended. */
export function processesCpuMs(pids: readonly number[]): number {
  let ms = 0;
  for (const pid of pids) {
    const proc = readProc(pid);
    if (proc) ms += proc.cpuMs + proc.exitedChildrenMs;
  }
  return ms;
}

/** What to tell apart: the render instance's process id and how to know the backends' processes. */
export interface CpuScope {
  instancePid: number;
  /**
   * Whether the deployment uses the local PostgreSQL server. Then the whole server counts, since the
   * bench is its only user (its own looks at the store included): the backends, those that ended, and
   * the WAL writer, checkpointer and autovacuum the jobs' writes keep busy. Counting only the live
   * backends named by the database lost what a backend closed between two snapshots had spent, and
   * read −0.8 ms a sync PDF.
   */
  postgres?: boolean;
  /** Port of the deployment's own redis-server. */
  redisPort?: number;
}

/** Milliseconds of CPU so far by group: Node (the instance), Chromium, PostgreSQL, s3rver, Redis. */
export function cpuSnapshot(scope: CpuScope): Record<string, number> {
  const all = processes();
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const descendants = (root: number) => {
    const found = new Set<number>();
    const queue = [...(children.get(root) ?? [])];
    while (queue.length > 0) {
      const p = queue.pop()!;
      found.add(p.pid);
      queue.push(...(children.get(p.pid) ?? []));
    }
    return found;
  };
  const below = descendants(scope.instancePid);
  const byPid = new Map(all.map((p) => [p.pid, p]));
  // The postmaster: a `postgres` process whose parent is not one.
  const postmaster = scope.postgres
    ? all.find((p) => p.comm === 'postgres' && byPid.get(p.ppid)?.comm !== 'postgres')
    : undefined;
  const server = postmaster ? descendants(postmaster.pid).add(postmaster.pid) : new Set<number>();
  const groups: Record<string, number> = { Node: 0, Chromium: 0, PostgreSQL: 0, s3rver: 0, Redis: 0 };
  for (const p of all) {
    let group: string | undefined;
    if (p.pid === scope.instancePid) {
      group = 'Node';
      // A Chromium the pool relaunched (it recycles after so many renders) is gone from /proc; its
      // time, renderers included, is in the instance's count of exited children.
      groups.Chromium! += p.exitedChildrenMs;
    } else if (below.has(p.pid) && /chrom|headless/i.test(p.comm)) {
      group = 'Chromium';
      // A renderer ends with its browser context: what it spent is kept by the browser that waited for it.
      groups.Chromium! += p.exitedChildrenMs;
    } else if (server.has(p.pid)) {
      group = 'PostgreSQL';
      // Backends that ended since the last look: the postmaster waited for them.
      if (p === postmaster) groups.PostgreSQL! += p.exitedChildrenMs;
    } else if (below.has(p.pid)) group = 'Node';
    else if (p.cmdline.includes('s3-server-main')) group = 's3rver';
    else if (scope.redisPort && p.comm === 'redis-server' && p.cmdline.includes(`:${scope.redisPort}`)) group = 'Redis';
    if (group) groups[group]! += p.cpuMs;
  }
  const own = process.cpuUsage();
  groups['bench client'] = (own.user + own.system) / 1000;
  return groups;
}

/** The growth of each group from `before` to `after`. */
export function cpuSpent(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - (before[k] ?? 0)]));
}
