/**
 * The Dockerfile's HEALTHCHECK, exactly as written there, run against each deploy/compose.yaml service
 * with that service's command and environment. No Docker engine here: the service runs as PID 1 of a
 * new PID namespace (`unshare`), as under tini in the container, and the check runs inside that
 * namespace (`nsenter`), as `docker exec` runs it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { freeLoopbackPort } from './nginx.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const canUnshare = spawnSync('unshare', ['-fp', '--mount-proc', 'true']).status === 0;
if (!canUnshare) console.warn('\n*** unshare is not permitted (needs root): the HEALTHCHECK suite is SKIPPED ***\n');

/** The HEALTHCHECK's CMD, with the image's WORKDIR (/app) mapped to this checkout. */
function healthcheckCommand(): string[] {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const cmd = /^HEALTHCHECK [^\n]*\\\n\s*CMD (\[.*\])\s*$/m.exec(dockerfile)?.[1];
  if (!cmd) throw new Error('no exec-form HEALTHCHECK CMD in the Dockerfile');
  return (JSON.parse(cmd) as string[]).map((arg) => arg.replace(/^\/app\//, `${ROOT}/`));
}

interface ComposeService {
  name: string;
  command: string[];
  environment: Record<string, string>;
}

/** The compose services that run the Pageworks image, with their command and environment. */
function pageworksServices(): ComposeService[] {
  const compose = parse(fs.readFileSync(path.join(ROOT, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { image?: string; command?: string[]; environment?: Record<string, string> }>;
  };
  return Object.entries(compose.services)
    .filter(([, s]) => s.image?.startsWith('pageworks'))
    .map(([name, s]) => ({ name, command: s.command ?? ['serve'], environment: s.environment ?? {} }));
}

/** A service's environment made local: its own variables, but loopback, free ports and no shared servers. */
async function localEnvironment(environment: Record<string, string>): Promise<NodeJS.ProcessEnv> {
  // Compose's interpolation with nothing set in deploy/.env: `${VAR:-default}` is the default, `${VAR}` empty.
  const interpolated = Object.fromEntries(
    Object.entries(environment).map(([k, v]) => [
      k,
      String(v).replace(/\$\{\w+(?::?-([^}]*))?(?::?\?[^}]*)?\}/g, (_m, fallback: string | undefined) => fallback ?? ''),
    ]),
  );
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', ...interpolated };
  // The health check needs neither: the instance runs on its own embedded store.
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-health-'));
  // Its temp folder inside the data dir, removed with it: what the killed PID 1 leaves there (Chromium's
  // profile) carries the id 1, which from this side is init's, alive, so no later process removes it.
  fs.mkdirSync(path.join(dataDir, 'tmp'));
  return {
    ...env,
    PAGEWORKS_HOST: '127.0.0.1',
    PAGEWORKS_DATA_DIR: dataDir,
    TMPDIR: path.join(dataDir, 'tmp'),
    // Every port set and distinct, so probing another service's port finds nothing there.
    DASHBOARD_PORT: String(await freeLoopbackPort()),
    RENDER_PORT: String(await freeLoopbackPort()),
    METADATA_PORT: String(await freeLoopbackPort()),
    RENDER_CONCURRENCY: '1',
    LOG_LEVEL: 'warn',
  };
}

/** `argv` as PID 1 of a new PID namespace; resolves with the host PID of that PID 1. */
async function asPidOne(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ pid: number; child: ChildProcess; output: () => string }> {
  const child = spawn('unshare', ['-fp', '--mount-proc', '--kill-child', ...argv], { cwd: ROOT, env });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const until = Date.now() + 10_000;
  for (;;) {
    const children = fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim();
    if (children) return { pid: Number(children.split(' ')[0]), child, output: () => output };
    if (Date.now() > until) throw new Error(`unshare started nothing: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs the HEALTHCHECK command inside the namespace of `pid`, with the container's environment. */
function runHealthcheck(pid: number, env: NodeJS.ProcessEnv): { code: number | null; stderr: string } {
  const res = spawnSync('nsenter', ['-t', String(pid), '-p', '-m', '--', ...healthcheckCommand()], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: res.status, stderr: res.stderr };
}

/**
 * Ends a namespace: SIGKILL to its PID 1 from outside (unshare itself ignores SIGTERM while it waits,
 * and a PID 1 without a handler ignores it too); the kernel then ends everything inside.
 */
async function stop(ns: { pid: number; child: ChildProcess }): Promise<void> {
  if (ns.child.exitCode !== null || ns.child.signalCode !== null) return;
  const exited = new Promise((resolve) => ns.child.once('exit', resolve));
  try {
    process.kill(ns.pid, 'SIGKILL');
  } catch {
    ns.child.kill('SIGKILL');
  }
  await exited;
}

/** The services to try: compose's own (one of each command), plus the same image chosen by PAGEWORKS_SERVICES. */
function cases(): ComposeService[] {
  const seen = new Set<string>();
  const fromCompose = pageworksServices().filter((s) => {
    const key = s.command.join(' ');
    return !seen.has(key) && seen.add(key);
  });
  const metadata = fromCompose.find((s) => s.command.includes('metadata'));
  const byVariable = metadata && {
    name: `${metadata.name} (PAGEWORKS_SERVICES)`,
    command: ['serve'],
    environment: { ...metadata.environment, PAGEWORKS_SERVICES: 'metadata' },
  };
  return byVariable ? [...fromCompose, byVariable] : fromCompose;
}

describe.skipIf(!canUnshare)("the Dockerfile's HEALTHCHECK against each compose service", () => {
  const running: Array<{ pid: number; child: ChildProcess }> = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map(stop));
  });

  it('covers every compose service that runs the image', () => {
    const names = pageworksServices().map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['render-1', 'render-2', 'metadata-1', 'metadata-2', 'dashboard']));
  });

  it.each(cases().map((s) => [s.name, s] as const))(
    '%s: exits 0 while its service answers, 1 when it does not',
    async (_name, s) => {
      const env = await localEnvironment(s.environment);
      try {
        // Down: PID 1 has the container's command line but nothing listens (a hung or crashed service).
        const idle = await asPidOne([process.execPath, '-e', 'setInterval(() => {}, 1000)', ...s.command], env);
        running.push(idle);
        const down = runHealthcheck(idle.pid, env);
        expect(down.code, down.stderr).toBe(1);
        running.splice(running.indexOf(idle), 1);
        await stop(idle);

        const up = await asPidOne([process.execPath, ...PAGEWORKS, ...s.command], env);
        running.push(up);
        const until = Date.now() + 90_000;
        while (!/listening on/.test(up.output())) {
          if (up.child.exitCode !== null || Date.now() > until) throw new Error(`${s.name} did not start:\n${up.output()}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const healthy = runHealthcheck(up.pid, env);
        expect(healthy.code, healthy.stderr).toBe(0);
      } finally {
        // The namespace ends first, so nothing in it still writes to the folders removed.
        await Promise.all(running.splice(0).map(stop));
        fs.rmSync(env.PAGEWORKS_DATA_DIR!, { recursive: true, force: true });
      }
    },
  );
});
