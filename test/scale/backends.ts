import { type ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import pg from 'pg';

/** Lowest port freePort picks: above the well-known and registered services a machine here runs. */
const LOW_PORT = 10_000;

/**
 * The first port of the kernel's ephemeral range, which `listen(0)` and outgoing connections are given
 * ports from (32768 when it cannot be read).
 */
function ephemeralStart(): number {
  try {
    const start = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > LOW_PORT + 1000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

async function canListen(port: number): Promise<boolean> {
  const server = net.createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (bound) await new Promise((resolve) => server.close(resolve));
  return bound;
}

/**
 * A free TCP port on 127.0.0.1, to be bound later (and again: a forwarder reopened, a Redis restarted).
 * It is picked below the ephemeral range: a port from `listen(0)` was, between its release and its use,
 * sometimes handed to another test file's server or connection, and the later bind failed EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOW_PORT + crypto.randomInt(end - LOW_PORT);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${LOW_PORT} and ${end}`);
}

/** A database of its own on the CI's PostgreSQL server, dropped by `drop()`. */
export interface FreshDatabase {
  name: string;
  /** DATABASE_URL of the new database. */
  url: string;
  /** DATABASE_URL of the new database with host:port replaced (to go through a forwarder). */
  urlVia(port: number): string;
  /** Runs one query on the new database. */
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

/** Creates an empty database (CREATE DATABASE) next to the one `adminUrl` names. */
export async function freshDatabase(adminUrl: string, prefix = 'pw_scale'): Promise<FreshDatabase> {
  const name = `${prefix}_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    urlVia(port) {
      const via = new URL(url);
      via.hostname = '127.0.0.1';
      via.port = String(port);
      return via.toString();
    },
    async query(text, values) {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end();
      }
    },
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A redis-server of the test's own on a spare loopback port (never the shared one): stop and start it at will. */
export class OwnRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  /** Starts redis-server on a free port, without persistence. */
  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.resume();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (again) on the same port and waits until it accepts connections. */
  async resume(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const until = Date.now() + 10_000;
    while (!(await accepts(this.port))) {
      if (Date.now() > until) throw new Error(`redis-server did not start on ${this.port}`);
      await sleep(50);
    }
  }

  /** Stops the server (SIGKILL: like a crash, nothing is saved) and waits for its exit. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * A TCP forwarder on loopback in front of a real server (PostgreSQL): `close()` refuses new
 * connections and cuts the open ones, like a database that went away; `open()` brings it back.
 */
export class TcpForwarder {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private stalled = false;

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  /** A forwarder on a free port; closed until `open()` when `startOpen` is false. */
  static async create(target: { host: string; port: number }, startOpen = true): Promise<TcpForwarder> {
    const forwarder = new TcpForwarder(await freePort(), target);
    if (startOpen) await forwarder.open();
    return forwarder;
  }

  async open(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      this.track(client);
      // Stalled: accept, then never answer (a database host that stopped responding).
      if (this.stalled) return;
      const upstream = this.track(net.connect(this.target.port, this.target.host));
      const cut = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', cut);
      upstream.on('error', cut);
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    // A port taken meanwhile fails the test with its error, not a hang until the test's timeout.
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
  }

  private track(socket: net.Socket): net.Socket {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    return socket;
  }

  /**
   * Stops moving bytes without closing anything: open connections go silent and new ones are
   * accepted but never answered, like a database that hangs instead of refusing.
   */
  stall(): void {
    this.stalled = true;
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
    }
  }

  /** Ends a stall: the silent connections are cut (the database "restarted") and new ones forward again. */
  resume(): void {
    this.stalled = false;
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
