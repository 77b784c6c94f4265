/** The metadata service's own Prometheus counters, on the service app's registry. */
import { Counter, type Registry } from 'prom-client';

const OUTCOMES = [
  'ok',
  'http_error',
  'timeout',
  'refused',
  'too_many_redirects',
  'bad_redirect',
  'connection_error',
  'bad_response',
] as const;

/** How one upstream fetch ended. */
export type FetchOutcome = (typeof OUTCOMES)[number];

/** What the service counts; each is a one-call method so the hot path does no label lookup. */
export interface MetadataMetrics {
  cacheHit(): void;
  cacheMiss(): void;
  /** A request waited for a fetch already under way, in this process (`local`) or on another instance (`shared`). */
  coalesced(scope: 'local' | 'shared'): void;
  upstream(outcome: FetchOutcome): void;
}

/** Counts nothing (the one-off CLI). */
export const NO_METRICS: MetadataMetrics = { cacheHit() {}, cacheMiss() {}, coalesced() {}, upstream() {} };

/**
 * Registers `pageworks_metadata_cache_lookups_total{result}`, `pageworks_metadata_coalesced_total{scope}` and
 * `pageworks_metadata_upstream_fetches_total{outcome}`; every label value is present from the start at 0.
 */
export function createMetadataMetrics(registry: Registry): MetadataMetrics {
  const cache = new Counter({
    name: 'pageworks_metadata_cache_lookups_total',
    help: 'Metadata cache lookups by result (hit, miss)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const coalesced = new Counter({
    name: 'pageworks_metadata_coalesced_total',
    help: 'Requests that waited for a fetch of the same URL already under way, in this instance (local) or another (shared)',
    labelNames: ['scope'] as const,
    registers: [registry],
  });
  const upstream = new Counter({
    name: 'pageworks_metadata_upstream_fetches_total',
    help: 'Fetches of target pages by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const hit = cache.labels('hit');
  const miss = cache.labels('miss');
  const scopes = { local: coalesced.labels('local'), shared: coalesced.labels('shared') };
  const outcomes = new Map(OUTCOMES.map((o) => [o, upstream.labels(o)]));
  for (const child of [hit, miss, scopes.local, scopes.shared, ...outcomes.values()]) child.inc(0);
  return {
    cacheHit: () => hit.inc(),
    cacheMiss: () => miss.inc(),
    coalesced: (scope) => scopes[scope].inc(),
    upstream: (outcome) => {
      const child = outcomes.get(outcome);
      if (!child) throw new Error(`metadata metrics: unknown upstream outcome "${outcome}"`);
      child.inc();
    },
  };
}
