import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAGEWORKS } from '../helpers/pageworks-command.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The sealing key every test instance is given: instances sharing a database share it, as in production. */
export const TEST_SECRETS_KEY = 'c0ffee'.repeat(10).concat('c0ff');

/**
 * The environment of an instance: PATH and HOME from this process and nothing else of it (no CI
 * DATABASE_URL/REDIS_URL leaking in), plus what the test gives.
 */
export function instanceEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' };
  return { ...base, PAGEWORKS_HOST: '127.0.0.1', LOG_LEVEL: 'info', SECRETS_KEY: TEST_SECRETS_KEY, ...env };
}

/** A service one instance runs alone (`render-worker` works render jobs and answers only health, readiness, metrics). */
export type InstanceService = 'render' | 'metadata' | 'dashboard' | 'render-worker';

/** One `pageworks serve --services …` process on a loopback port. */
export class Instance {
  output = '';
  readonly exited: Promise<number | null>;

  private constructor(
    readonly service: InstanceService,
    private readonly child: ChildProcess,
    private readonly dataDir: string,
  ) {
    child.stdout!.on('data', (d) => (this.output += d));
    child.stderr!.on('data', (d) => (this.output += d));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /** Starts an instance of `service` and waits until it listens (or fails: then it is killed). */
  static async start(service: InstanceService, env: Record<string, string>, timeoutMs = 60_000): Promise<Instance> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-scale-'));
    const child = spawn(process.execPath, [...PAGEWORKS, 'serve', '--services', service], {
      cwd: ROOT,
      env: instanceEnv({
        PAGEWORKS_DATA_DIR: dataDir,
        RENDER_PORT: '0',
        METADATA_PORT: '0',
        DASHBOARD_PORT: '0',
        RENDER_CONCURRENCY: '1',
        ...env,
      }),
    });
    const instance = new Instance(service, child, dataDir);
    try {
      await instance.waitFor(new RegExp(`${service}\\s+listening on`), timeoutMs);
    } catch (err) {
      instance.kill();
      throw err;
    }
    return instance;
  }

  /** Base address, read from the "listening on" line. */
  get url(): string {
    const match = new RegExp(`${this.service}\\s+listening on (http://\\S+)`).exec(this.output);
    if (!match) throw new Error(`${this.service} instance is not listening:\n${this.output}`);
    return match[1]!;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Resident memory of the Node process (not its Chromium children), in MB, from /proc. */
  rssMb(): number {
    const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${this.pid}/status`, 'utf8'))?.[1];
    return Number(kb) / 1024;
  }

  /** Waits until the output matches `pattern`; throws with the output when the process exits or time runs out. */
  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!pattern.test(this.output)) {
      if (this.child.exitCode !== null || Date.now() > until) {
        throw new Error(`instance never printed ${pattern} (exit ${this.child.exitCode}):\n${this.output.slice(-3000)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Sends a signal and waits for the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill(signal);
    const code = await this.exited;
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    return code;
  }

  /** Kills the process if it still runs (cleanup). */
  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Runs the CLI once with `env` and returns its exit code and output. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...PAGEWORKS, ...args], { cwd: ROOT, env: instanceEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // 'close', not 'exit': a process's last output can still be in its pipes when it has exited.
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** Every process below `pid` (children, grandchildren, …), from /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.pop()!;
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

/** Whether a process still exists and is not a zombie waiting to be reaped. */
export function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
