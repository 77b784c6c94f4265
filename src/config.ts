import os from 'node:os';
import path from 'node:path';
import { egressAllow, mailFrom, resultStore, signTsaUrl, trustProxy } from './config-addresses.js';
import { bool, ConfigError, type Env, fraction, int, oneOf, port, publicBase, str, url } from './config-env.js';
import { previousKeys, secretsKey } from './config-secrets-key.js';

/** The services one process can run; `render-worker` works render jobs with no public API. */
export const SERVICES = ['dashboard', 'render', 'metadata', 'render-worker'] as const;
/** What runs when PAGEWORKS_SERVICES is unset: everything but the bare worker (the render service works jobs itself). */
const DEFAULT_SERVICES = 'dashboard,render,metadata';
export type ServiceName = (typeof SERVICES)[number];
/** The two API services that take keys. */
export type ApiService = 'render' | 'metadata';

/** Validated, frozen configuration of one process. */
export interface Config {
  readonly host: string;
  readonly dashboardPort: number;
  readonly renderPort: number;
  readonly metadataPort: number;
  readonly services: readonly ServiceName[];
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly redisUrl: string | undefined;
  readonly chromiumPath: string | undefined;
  readonly renderConcurrency: number;
  readonly renderQueueLimit: number;
  readonly renderTimeoutMs: number;
  /** After the load event, how long requests still pending are waited for before printing regardless. */
  readonly renderIdleMaxMs: number;
  /** Relaunch Chromium after this many renders (0: never); the new one is ready before the old one drains. */
  readonly renderRecycleAfter: number;
  /** Relaunch Chromium when its processes together hold more resident memory than this, in MiB (0: never). */
  readonly renderMaxBrowserRssMb: number;
  readonly renderRateLimit: number;
  readonly metadataRateLimit: number;
  /** Length of the fixed window both rate limits count in (seconds; a minute by default). */
  readonly rateLimitWindowS: number;
  /** log2 of scrypt's N for new dashboard password hashes (17: OWASP's recommendation). */
  readonly passwordHashCost: number;
  readonly metadataTimeoutMs: number;
  readonly metadataMaxBytes: number;
  readonly metadataCacheTtlS: number;
  readonly metadataUserAgent: string;
  readonly egressAllow: readonly string[];
  /** Longest a client may take to send a request's headers (slow-loris), every service. */
  readonly httpHeadersTimeoutMs: number;
  /** Longest a client may take to send a whole request, headers and body, every service. */
  readonly httpRequestTimeoutMs: number;
  readonly dashboardSignup: 'open' | 'closed';
  /** Set cookies with `Secure` and the `__Host-` prefix (dashboard behind HTTPS). */
  readonly dashboardSecureCookies: boolean;
  /** Addresses/CIDRs of reverse proxies whose `X-Forwarded-For`/`-Proto` are believed; empty: none. */
  readonly trustProxy: readonly string[];
  /** Public base addresses shown in the dashboard's curl examples; default to host:port. */
  readonly renderPublicUrl: string;
  readonly metadataPublicUrl: string;
  readonly logLevel: string;
  /** `smtp://` or `smtps://` server for the dashboard's mail (password reset); undefined: no mail. */
  readonly smtpUrl: string | undefined;
  /** Sender of the dashboard's mail. */
  readonly mailFrom: string;
  /** Base address of the dashboard in links that mail (and the CLI) hand out. */
  readonly dashboardPublicUrl: string;
  /** Days the activity log keeps an entry. */
  readonly activityRetentionDays: number;
  /** `auto` (unset): human-readable lines when stdout is a terminal, JSON otherwise. */
  readonly logFormat: 'auto' | 'pretty' | 'json';
  /** Attempts a render job gets (a lost worker or a transient failure) before it ends failed. */
  readonly renderJobAttempts: number;
  /** Most queued render jobs per account; one more is refused with 429. */
  readonly renderJobsMaxQueued: number;
  /** Most queued HTML per account in MiB (UTF-8 bytes of the jobs' `html`); a job beyond it is refused with 429. */
  readonly renderJobsMaxQueuedMb: number;
  /** Hours a job's PDF is kept for download. */
  readonly renderJobRetentionH: number;
  /** Most parts of one POST /v1/assemble (a job takes up to 5,000, ASSEMBLE_JOB_MAX_PARTS). */
  readonly assembleMaxParts: number;
  /** Most bytes one assembly's parts may come to, each part counted every time it is named (413 past it). */
  readonly assembleMaxBytes: number;
  /** Days the render log keeps a render's record (GET /v1/renders/{id}, the Renders page). */
  readonly renderLogRetentionDays: number;
  /** KiB of report entries an account's render log keeps; past it a record keeps its counts, not its entries. */
  readonly renderLogAccountKib: number;
  /** Where job PDFs go: undefined → files under the data dir; else `s3://bucket/prefix`. */
  readonly resultStore: string | undefined;
  /** An S3-compatible endpoint (path-style addressing); unset: AWS's own. */
  readonly s3Endpoint: string | undefined;
  /** A worker's lease on a job, renewed every third of it while rendering. */
  readonly renderJobLeaseMs: number;
  /** Jobs one process renders at once; undefined: by role (jobSlots). 0 on `render`: the API alone. */
  readonly renderWorkerConcurrency: number | undefined;
  /** Scales the webhook retry schedule (5 s … 10 h) down: 0 to 1 only, below 1 for tests and staging. */
  readonly webhookRetryScale: number;
  /**
   * The server key (32 bytes) that seals secrets at rest (AES-256-GCM): signing certificates' private keys,
   * queued jobs' `protect` passwords, accounts' webhook signing secrets. SECRETS_KEY (or its older name CERTIFICATE_KEY); undefined: the
   * embedded store keeps its own in the data directory (secrets/server-key.ts), PostgreSQL needs it set.
   * Never logged, never returned.
   */
  readonly secretsKey: Buffer | undefined;
  /** Keys that still open what was sealed before a rotation (SECRETS_KEY_PREVIOUS); they never seal. */
  readonly secretsKeyPrevious: readonly Buffer[];
  /** An RFC 3161 timestamp authority signatures get a timestamp from (PAdES B-T); undefined: B-B only. */
  readonly signTsaUrl: string | undefined;
  /** Worker processes that read, merge, encrypt and sign customers' PDFs, PKCS#12 files and XML. */
  readonly pdfWorkers: number;
  /** Longest one such operation may take before its worker is ended (a merge: this per 100 parts). */
  readonly pdfWorkTimeoutMs: number;
  /** Most resident memory of one PDF worker process (MiB; its heap is capped to the same); past it the operation ends. */
  readonly pdfWorkMaxMb: number;
}

/** Parses the comma-separated service list of PAGEWORKS_SERVICES or `serve --services`. */
export function parseServices(raw: string, variable = 'PAGEWORKS_SERVICES'): ServiceName[] {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new ConfigError(variable, `empty (allowed: ${SERVICES.join(', ')})`);
  for (const name of names) {
    if (!(SERVICES as readonly string[]).includes(name)) {
      throw new ConfigError(variable, `unknown service "${name}" (allowed: ${SERVICES.join(', ')})`);
    }
  }
  if (names.includes('render') && names.includes('render-worker')) {
    throw new ConfigError(variable, 'render and render-worker both listen on RENDER_PORT (render works jobs itself; choose one)');
  }
  return [...new Set(names)] as ServiceName[];
}

/** The configured limit of a service per rate-limit window, before per-account overrides. */
export function defaultLimit(config: Pick<Config, 'renderRateLimit' | 'metadataRateLimit'>, service: ApiService): number {
  return service === 'render' ? config.renderRateLimit : config.metadataRateLimit;
}

/**
 * The render slots jobs may use in a process of this role: RENDER_WORKER_CONCURRENCY, else on `render`
 * one fewer than RENDER_CONCURRENCY (a slot stays for interactive renders) when there are two or more, and
 * every slot on `render-worker`, which has no interactive renders. Throws when a worker would work nothing.
 */
export function jobSlots(
  config: Pick<Config, 'renderConcurrency' | 'renderWorkerConcurrency'>,
  role: 'render' | 'render-worker',
): number {
  const set = config.renderWorkerConcurrency;
  if (set === 0 && role === 'render-worker') {
    throw new ConfigError('RENDER_WORKER_CONCURRENCY', '0 on render-worker would work no job (0 is for render: the API alone)');
  }
  if (set !== undefined) return set;
  const slots = config.renderConcurrency;
  return role === 'render' && slots >= 2 ? slots - 1 : slots;
}

/** Reads and validates the whole configuration from the environment. Throws ConfigError. */
export function loadConfig(env: Env = process.env): Config {
  const host = str(env, 'PAGEWORKS_HOST', '127.0.0.1');
  const renderPort = port(env, 'RENDER_PORT', 3001);
  const metadataPort = port(env, 'METADATA_PORT', 3002);
  const cpus = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  const renderConcurrency = int(env, 'RENDER_CONCURRENCY', cpus, 1, 256);
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const config: Config = {
    host,
    dashboardPort: port(env, 'DASHBOARD_PORT', 3000),
    renderPort,
    metadataPort,
    services: parseServices(str(env, 'PAGEWORKS_SERVICES', DEFAULT_SERVICES)),
    dataDir: path.resolve(str(env, 'PAGEWORKS_DATA_DIR', './data')),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    chromiumPath: env.CHROMIUM_PATH || undefined,
    renderConcurrency,
    renderQueueLimit: int(env, 'RENDER_QUEUE_LIMIT', renderConcurrency * 8, 0, 100_000),
    renderTimeoutMs: int(env, 'RENDER_TIMEOUT_MS', 30_000, 100, 600_000),
    renderIdleMaxMs: int(env, 'RENDER_IDLE_MAX_MS', 2000, 0, 600_000),
    renderRecycleAfter: int(env, 'RENDER_RECYCLE_AFTER', 500, 0, 10_000_000),
    renderMaxBrowserRssMb: int(env, 'RENDER_MAX_BROWSER_RSS_MB', 2048, 0, 1_048_576),
    renderRateLimit: int(env, 'RENDER_RATE_LIMIT', 120, 1, 1_000_000),
    metadataRateLimit: int(env, 'METADATA_RATE_LIMIT', 600, 1, 1_000_000),
    rateLimitWindowS: int(env, 'RATE_LIMIT_WINDOW_S', 60, 1, 86_400),
    passwordHashCost: int(env, 'PASSWORD_HASH_COST', 17, 14, 20),
    metadataTimeoutMs: int(env, 'METADATA_TIMEOUT_MS', 10_000, 100, 600_000),
    metadataMaxBytes: int(env, 'METADATA_MAX_BYTES', 5_242_880, 1024, 1_073_741_824),
    metadataCacheTtlS: int(env, 'METADATA_CACHE_TTL_S', 300, 0, 86_400 * 30),
    metadataUserAgent: str(env, 'METADATA_USER_AGENT', 'PageworksBot/1.0 (+https://github.com/pageworks; metadata unfurler)'),
    egressAllow: egressAllow(env),
    httpHeadersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    httpRequestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 60_000, 100, 3_600_000),
    dashboardSignup: oneOf(env, 'DASHBOARD_SIGNUP', ['open', 'closed'] as const, 'open'),
    dashboardSecureCookies: bool(env, 'DASHBOARD_SECURE_COOKIES', false),
    trustProxy: trustProxy(env),
    renderPublicUrl: publicBase(env, 'RENDER_PUBLIC_URL', `http://${publicHost}:${renderPort}`),
    metadataPublicUrl: publicBase(env, 'METADATA_PUBLIC_URL', `http://${publicHost}:${metadataPort}`),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: mailFrom(env),
    dashboardPublicUrl: publicBase(env, 'DASHBOARD_PUBLIC_URL', `http://${publicHost}:${port(env, 'DASHBOARD_PORT', 3000)}`),
    activityRetentionDays: int(env, 'ACTIVITY_RETENTION_DAYS', 90, 1, 36_500),
    logFormat: str(env, 'LOG_FORMAT', '') === '' ? 'auto' : oneOf(env, 'LOG_FORMAT', ['pretty', 'json'] as const, 'json'),
    renderJobAttempts: int(env, 'RENDER_JOB_ATTEMPTS', 3, 1, 100),
    renderJobsMaxQueued: int(env, 'RENDER_JOBS_MAX_QUEUED', 10_000, 1, 10_000_000),
    renderJobsMaxQueuedMb: int(env, 'RENDER_JOBS_MAX_QUEUED_MB', 1024, 1, 10_000_000),
    renderJobRetentionH: int(env, 'RENDER_JOB_RETENTION_H', 24, 1, 24 * 366),
    assembleMaxParts: int(env, 'ASSEMBLE_MAX_PARTS', 100, 1, 5_000),
    // 256 MiB, src/assemble/parts.ts's DEFAULT_ASSEMBLE_MAX_BYTES.
    assembleMaxBytes: int(env, 'ASSEMBLE_MAX_BYTES', 268_435_456, 1_048_576, 17_179_869_184),
    renderLogRetentionDays: int(env, 'RENDER_LOG_RETENTION_DAYS', 7, 1, 36_500),
    renderLogAccountKib: int(env, 'RENDER_LOG_ACCOUNT_KIB', 65_536, 64, 16_777_216),
    resultStore: resultStore(env),
    s3Endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    renderJobLeaseMs: int(env, 'RENDER_JOB_LEASE_MS', 30_000, 300, 3_600_000),
    renderWorkerConcurrency: env.RENDER_WORKER_CONCURRENCY ? int(env, 'RENDER_WORKER_CONCURRENCY', 0, 0, 256) : undefined,
    webhookRetryScale: fraction(env, 'WEBHOOK_RETRY_SCALE', 1),
    secretsKey: secretsKey(env),
    secretsKeyPrevious: previousKeys(env),
    signTsaUrl: signTsaUrl(env, egressAllow(env)),
    pdfWorkers: int(env, 'PDF_WORKERS', 2, 1, 64),
    pdfWorkTimeoutMs: int(env, 'PDF_WORK_TIMEOUT_MS', 5000, 100, 600_000),
    pdfWorkMaxMb: int(env, 'PDF_WORK_MAX_MB', 1024, 128, 65_536),
  };
  if (config.services.includes('render-worker')) jobSlots(config, 'render-worker');
  // Node refuses a server whose header timeout is longer than its whole-request timeout.
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      `${config.httpHeadersTimeoutMs} is longer than HTTP_REQUEST_TIMEOUT_MS (${config.httpRequestTimeoutMs})`,
    );
  }
  return Object.freeze(config);
}
