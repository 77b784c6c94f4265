import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config-env.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.trustProxy).toEqual([]);
    expect(c).toMatchObject({
      host: '127.0.0.1',
      dashboardPort: 3000,
      renderPort: 3001,
      metadataPort: 3002,
      services: ['dashboard', 'render', 'metadata'],
      databaseUrl: undefined,
      redisUrl: undefined,
      renderTimeoutMs: 30_000,
      renderIdleMaxMs: 2000,
      renderRateLimit: 120,
      metadataRateLimit: 600,
      metadataTimeoutMs: 10_000,
      metadataMaxBytes: 5_242_880,
      metadataCacheTtlS: 300,
      egressAllow: [],
      renderRecycleAfter: 500,
      renderMaxBrowserRssMb: 2048,
      httpHeadersTimeoutMs: 10_000,
      httpRequestTimeoutMs: 60_000,
    });
    expect(c.renderConcurrency).toBeGreaterThanOrEqual(1);
    expect(c.renderQueueLimit).toBeGreaterThanOrEqual(c.renderConcurrency);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads LOG_FORMAT: unset or empty is auto (pretty on a terminal), else pretty or json', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: '' }).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
  });

  it('reads every variable', () => {
    const c = loadConfig({
      RENDER_PORT: '4001',
      PAGEWORKS_SERVICES: 'render, metadata',
      DATABASE_URL: 'postgres://u@db:5432/x',
      REDIS_URL: 'redis://r:6379',
      RENDER_CONCURRENCY: '3',
      RENDER_QUEUE_LIMIT: '0',
      EGRESS_ALLOW: '127.0.0.1/32, intranet.example, ::1/128',
      METADATA_CACHE_TTL_S: '0',
      RENDER_RECYCLE_AFTER: '0',
      RENDER_MAX_BROWSER_RSS_MB: '1500',
      HTTP_HEADERS_TIMEOUT_MS: '5000',
      HTTP_REQUEST_TIMEOUT_MS: '5000',
      TRUST_PROXY: '172.28.0.0/24, 10.0.0.1, ::1',
      RENDER_IDLE_MAX_MS: '0',
    });
    expect(c).toMatchObject({
      renderPort: 4001,
      services: ['render', 'metadata'],
      databaseUrl: 'postgres://u@db:5432/x',
      redisUrl: 'redis://r:6379',
      renderConcurrency: 3,
      renderQueueLimit: 0,
      egressAllow: ['127.0.0.1/32', 'intranet.example', '::1/128'],
      metadataCacheTtlS: 0,
      renderRecycleAfter: 0,
      renderMaxBrowserRssMb: 1500,
      httpHeadersTimeoutMs: 5000,
      httpRequestTimeoutMs: 5000,
      trustProxy: ['172.28.0.0/24', '10.0.0.1', '::1'],
      renderIdleMaxMs: 0,
    });
  });

  it.each([
    ['RENDER_PORT', 'abc', /^RENDER_PORT: "abc" is not a whole number \(allowed: 0\.\.65535\)$/],
    ['RENDER_PORT', '70000', /^RENDER_PORT: 70000 is out of range/],
    ['METADATA_RATE_LIMIT', '-1', /^METADATA_RATE_LIMIT: "-1" is not a whole number/],
    ['METADATA_RATE_LIMIT', '0', /^METADATA_RATE_LIMIT: 0 is out of range/],
    ['RENDER_TIMEOUT_MS', '1.5', /^RENDER_TIMEOUT_MS: "1.5" is not a whole number/],
    ['RENDER_IDLE_MAX_MS', '2s', /^RENDER_IDLE_MAX_MS: "2s" is not a whole number \(allowed: 0\.\.600000\)$/],
    ['RENDER_IDLE_MAX_MS', '600001', /^RENDER_IDLE_MAX_MS: 600001 is out of range/],
    ['RENDER_RECYCLE_AFTER', '-5', /^RENDER_RECYCLE_AFTER: "-5" is not a whole number/],
    ['RENDER_MAX_BROWSER_RSS_MB', '2GB', /^RENDER_MAX_BROWSER_RSS_MB: "2GB" is not a whole number/],
    ['HTTP_HEADERS_TIMEOUT_MS', '50', /^HTTP_HEADERS_TIMEOUT_MS: 50 is out of range \(allowed: 100\.\.600000\)$/],
    ['HTTP_HEADERS_TIMEOUT_MS', '90000', /^HTTP_HEADERS_TIMEOUT_MS: 90000 is longer than HTTP_REQUEST_TIMEOUT_MS \(60000\)$/],
    [
      'DATABASE_URL',
      'mysql://root@localhost/db',
      /^DATABASE_URL: scheme "mysql:" is not allowed \(allowed: postgres:\/\/…, postgresql:\/\/…\)$/,
    ],
    ['DATABASE_URL', 'not a url', /^DATABASE_URL: not a URL/],
    ['REDIS_URL', 'http://localhost', /^REDIS_URL: scheme "http:" is not allowed/],
    ['PAGEWORKS_SERVICES', 'render,pdf', /^PAGEWORKS_SERVICES: unknown service "pdf"/],
    ['EGRESS_ALLOW', '10.0.0.0/8,http://x', /^EGRESS_ALLOW: "http:\/\/x" is neither a CIDR nor a host name/],
    ['TRUST_PROXY', 'nginx', /^TRUST_PROXY: "nginx" is not an IP address or CIDR/],
    ['TRUST_PROXY', '10.0.0.0/99', /^TRUST_PROXY: "10.0.0.0\/99" is not an IP address or CIDR/],
    ['DASHBOARD_SIGNUP', 'maybe', /^DASHBOARD_SIGNUP: "maybe" is not allowed \(allowed: open, closed\)$/],
    ['LOG_FORMAT', 'text', /^LOG_FORMAT: "text" is not allowed \(allowed: pretty, json\)$/],
  ])('refuses %s=%s with a message naming the variable', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    expect((error as Error).message).toMatch(message);
  });
});
