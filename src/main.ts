import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type CoreDeps, closeCore, createCore } from './app/core.js';
import type { Config, ServiceName } from './config.js';
import { requireServerKey, serverKeyLine } from './secrets/server-key.js';

/** The port each service listens on. */
function portOf(config: Config, service: ServiceName): number {
  if (service === 'dashboard') return config.dashboardPort;
  return service === 'metadata' ? config.metadataPort : config.renderPort;
}

/** Builds one service's app; imported lazily so a metadata-only instance never loads the browser driver. */
async function buildApp(service: ServiceName, core: CoreDeps): Promise<FastifyInstance> {
  switch (service) {
    case 'dashboard':
      return (await import('./app/dashboard-app.js')).buildDashboardApp(core);
    case 'render':
      return (await import('./app/render-app.js')).buildRenderApp(core);
    case 'metadata':
      return (await import('./app/metadata-app.js')).buildMetadataApp(core);
    case 'render-worker':
      return (await import('./app/render-worker-app.js')).buildRenderWorkerApp(core);
  }
}

/**
 * On the first start of an empty embedded store, creates a local account with one key per service
 * and prints them once, so a newcomer can curl straight away. Never on PostgreSQL (shared, managed).
 * The keys are in the account's activity log like any other key (docs/accounts.md).
 */
export async function bootstrapLocalAccount(core: CoreDeps, opts: { print?: (text: string) => void } = {}): Promise<void> {
  if (core.store.kind !== 'sqlite' || (await core.store.countAccounts()) > 0) return;
  const email = 'local@pageworks.localhost';
  const password = crypto.randomBytes(12).toString('base64url');
  const account = await core.accounts.create(email, password);
  const render = await core.keys.create(account.id, 'render', 'local');
  const metadata = await core.keys.create(account.id, 'metadata', 'local');
  for (const created of [render, metadata])
    await core.activity.record(account.id, 'key_created', 'system', {
      detail: `${created.record.displayPrefix}… (${created.record.service}), at the first start`,
    });
  const { config } = core;
  const lines = [
    '',
    'First start on an empty store: created a local account. This is shown once; keep it.',
    `  dashboard login : ${email} / ${password}`,
    `  render key      : ${render.key}`,
    `  metadata key    : ${metadata.key}`,
    '',
    `  curl -X POST ${config.renderPublicUrl}/v1/render -H 'Authorization: Bearer ${render.key}' \\`,
    `       -H 'Content-Type: application/json' -d '{"html":"<h1>Hello</h1>"}' -o hello.pdf`,
    `  curl '${config.metadataPublicUrl}/v1/fetch?url=https%3A%2F%2Fexample.com' -H 'X-API-Key: ${metadata.key}'`,
    '',
    '  A document or webhook on this machine (127.0.0.1) is refused as loopback unless the server runs with',
    '  EGRESS_ALLOW=127.0.0.1/32 (EGRESS_ALLOW=127.0.0.1/32 npm start).',
    '',
  ];
  (opts.print ?? ((text) => process.stdout.write(text)))(`${lines.join('\n')}\n`);
}

/**
 * How long a service's requests may still run after the signal: its own timeout (the render service
 * ends what still runs at its render timeout: render-app.ts), and a second to send the answers.
 */
function graceOf(config: Config, service: ServiceName): number {
  if (service === 'render' || service === 'render-worker') return config.renderTimeoutMs + 1000;
  if (service === 'metadata') return config.metadataTimeoutMs + 1000;
  // Dashboard requests are short, but a password hash on a loaded machine can take seconds.
  return 10_000;
}

/** After the grace, this long for the rest (jobs handed back, writes flushed, Chromium and the store closed). */
const EXIT_RESERVE_MS = 4000;

/**
 * Closes one app: stop accepting, let in-flight requests finish; past `graceMs` the remaining
 * connections are cut so the batched writes are still flushed before an orchestrator's SIGKILL.
 */
async function closeWithGrace(app: FastifyInstance, graceMs: number, core: CoreDeps): Promise<void> {
  const timer = setTimeout(() => {
    core.log.warn({ graceMs }, 'grace period over: closing the connections still open');
    app.server.closeAllConnections();
  }, graceMs);
  timer.unref();
  // A keep-alive connection whose request finished after close began is idle now: close it too,
  // or the drain waits for the client's keep-alive timeout.
  const sweep = setInterval(() => app.server.closeIdleConnections(), 500);
  sweep.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
    clearInterval(sweep);
  }
}

/** The start-up line naming what EGRESS_ALLOW opens. */
export function egressAllowLine(allow: readonly string[]): string {
  return allow.length === 0
    ? 'EGRESS_ALLOW opens nothing: private, loopback and link-local addresses stay refused'
    : `EGRESS_ALLOW opens ${allow.join(', ')}`;
}

/**
 * Starts the configured services on their ports and runs until SIGINT/SIGTERM, then shuts down in
 * order: stop accepting and drain each service, flush batched writes, close Redis and the store.
 */
export async function serve(config: Config): Promise<void> {
  requireServerKey(config);
  const core = await createCore(config);
  const apps: Array<{ service: ServiceName; app: FastifyInstance }> = [];
  const closeAll = async () => {
    await Promise.allSettled(apps.map(({ app, service }) => closeWithGrace(app, graceOf(config, service), core)));
    await closeCore(core);
  };
  try {
    await bootstrapLocalAccount(core);
    for (const service of config.services) {
      const app = await buildApp(service, core);
      apps.push({ service, app });
      await app.listen({ host: config.host, port: portOf(config, service) });
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  for (const { service, app } of apps) {
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : portOf(config, service);
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    process.stdout.write(`${service.padEnd(9)} listening on http://${host}:${port}\n`);
  }
  core.log.info({ services: config.services, store: core.store.kind, limiter: core.limiter.kind }, 'pageworks started');
  // What the egress policy lets through beyond the public internet, so an operator sees the setting took effect.
  core.log.info({ egressAllow: config.egressAllow }, egressAllowLine(config.egressAllow));
  // Where the key that seals secrets at rest is (never the key), so an operator knows what to back up.
  core.log.info({}, serverKeyLine(core.secrets));

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        core.log.warn({ signal }, 'second signal: exiting without waiting');
        process.exit(1);
      }
      stopping = true;
      core.log.info({ signal }, 'shutting down: draining requests, flushing writes');
      // The promise to an orchestrator: out within the longest grace and the reserve (RENDER_TIMEOUT_MS + 5 s
      // for a render process), even if a close hangs on a store or a browser that no longer answers.
      const boundMs = Math.max(...config.services.map((s) => graceOf(config, s))) + EXIT_RESERVE_MS;
      setTimeout(() => {
        core.log.error({ boundMs }, 'shutdown did not finish in time: exiting now');
        process.exit(1);
      }, boundMs).unref();
      closeAll().then(resolve, (err) => {
        core.log.error({ err }, 'error during shutdown');
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.stdout.write('pageworks stopped\n');
}
