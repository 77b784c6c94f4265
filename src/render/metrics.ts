/**
 * The render service's Prometheus metrics, on the app's registry: renders in flight and waiting, whether
 * a Chromium is up, render outcomes and durations, Chromium restarts and render contexts thrown away.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DiscardReason } from './browser/browser-instance.js';
import type { BrowserPool, PoolEvents } from './pool/browser-pool.js';
import type { RestartReason } from './pool/chromium-supervisor.js';

/** The pool's events as metrics; `watch` connects the gauges to the pool once it runs. */
export interface RenderMetrics extends PoolEvents {
  watch(pool: BrowserPool): void;
}

const RESTART_REASONS: RestartReason[] = ['crash', 'renders', 'memory'];
const DISCARD_REASONS: DiscardReason[] = ['state', 'failure', 'worn', 'retiring'];

/** Registers the render metrics on `registry` and returns the events that move them. */
export function createRenderMetrics(registry: Registry): RenderMetrics {
  let pool: BrowserPool | undefined;
  const registers = [registry];
  new Gauge({
    name: 'pageworks_renders_in_flight',
    help: 'Renders that have their turn (a render slot or waiting for one) right now',
    registers,
    collect() {
      this.set(pool?.inFlight ?? 0);
    },
  });
  new Gauge({
    name: 'pageworks_render_queue_depth',
    help: 'Renders waiting for their turn',
    registers,
    collect() {
      this.set(pool?.queueDepth ?? 0);
    },
  });
  new Gauge({
    name: 'pageworks_chromium_up',
    help: '1 while a connected Chromium serves renders, 0 while it starts, restarts or is gone',
    registers,
    collect() {
      this.set(pool && pool.unavailable === undefined ? 1 : 0);
    },
  });
  const renders = new Counter({
    name: 'pageworks_renders_total',
    help: 'Renders by outcome: ok, or the error code of the answer (OVERLOADED, RENDER_TIMEOUT, …)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'pageworks_render_duration_seconds',
    help: 'Time from a render getting its turn to its end (queue wait excluded), by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.2, 0.35, 0.5, 1, 2, 5, 10, 30, 60],
    registers,
  });
  const restarts = new Counter({
    name: 'pageworks_chromium_restarts_total',
    help: 'Chromium replaced by a new one: after a crash or disconnect, or recycled (render count, memory)',
    labelNames: ['reason'] as const,
    registers,
  });
  const discarded = new Counter({
    name: 'pageworks_render_contexts_discarded_total',
    help: 'Render slot contexts thrown away instead of reused: the render left state, failed, wore the slot out, or Chromium was retiring',
    labelNames: ['reason'] as const,
    registers,
  });
  // Every series exists from the start, so rate() and alerts see a 0 before the first event.
  renders.inc({ outcome: 'ok' }, 0);
  for (const reason of RESTART_REASONS) restarts.inc({ reason }, 0);
  for (const reason of DISCARD_REASONS) discarded.inc({ reason }, 0);

  return {
    watch(running) {
      pool = running;
    },
    rendered(outcome, renderS) {
      renders.inc({ outcome });
      if (renderS !== null) duration.observe({ outcome }, renderS);
    },
    chromiumRestarted(reason) {
      restarts.inc({ reason });
    },
    slotDiscarded(reason) {
      discarded.inc({ reason });
    },
  };
}
