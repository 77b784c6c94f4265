/**
 * The HTTP request counter and latency histogram of a service, counted in plain numbers per route, method
 * and status and handed to prom-client only when `/metrics` is read. prom-client's own `inc` and `observe`
 * check and hash the label object on every call (about 3 µs a request together, measured), which a request
 * need not pay: the few series are known by their key string here.
 */
import { Counter, type Metric, type Registry } from 'prom-client';

type Labels = { route: string; method: string; status: string };

interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); one more than the bounds, for +Inf. */
  buckets: number[];
}

/** What prom-client's registry reads of a histogram: one line's labels, value and name. */
interface Sample {
  labels: Record<string, string | number>;
  sharedLabels: Labels;
  value: number;
  metricName: string;
  /** null on bucket lines, as prom-client's histogram without exemplars has it. */
  exemplar?: null;
}

/** Names, help and buckets of the two metrics. */
export interface RequestSeriesOptions {
  counter: { name: string; help: string };
  histogram: { name: string; help: string; buckets: readonly number[] };
}

/** Counts requests and their latency by route, method and status; registers both metrics on `registry`. */
export class RequestSeries {
  private readonly series = new Map<string, Series>();
  private readonly bounds: readonly number[];

  constructor(registry: Registry, opts: RequestSeriesOptions) {
    this.bounds = opts.histogram.buckets;
    const series = this.series;
    new Counter({
      ...opts.counter,
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of series.values()) this.inc(s.labels, s.count);
      },
    });
    registry.registerMetric(this.histogram(opts.histogram.name, opts.histogram.help) as unknown as Metric);
  }

  /** Counts one answered request that took `seconds`. */
  observe(route: string, method: string, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    let s = this.series.get(key);
    if (s === undefined) {
      s = {
        labels: { route, method, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Array(this.bounds.length + 1).fill(0),
      };
      this.series.set(key, s);
    }
    s.count += 1;
    s.sum += seconds;
    let i = 0;
    for (const bound of this.bounds) {
      if (seconds <= bound) break;
      i++;
    }
    s.buckets[i] = (s.buckets[i] ?? 0) + 1;
  }

  /**
   * The histogram as prom-client's registry reads one (`get`, and `getForPromString` for the text format):
   * the same lines, labels and order as prom-client's Histogram writes.
   */
  private histogram(name: string, help: string) {
    const samples = (): Sample[] => {
      const out: Sample[] = [];
      for (const s of this.series.values()) {
        let cumulative = 0;
        this.bounds.forEach((le, i) => {
          cumulative += s.buckets[i] ?? 0;
          out.push({ labels: { le }, sharedLabels: s.labels, value: cumulative, metricName: `${name}_bucket`, exemplar: null });
        });
        out.push(
          { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null },
          { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum` },
          { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count` },
        );
      }
      return out;
    };
    const head = { name, help, type: 'histogram', aggregator: 'sum' } as const;
    return {
      ...head,
      getForPromString: async () => ({ ...head, values: samples() }),
      get: async () => ({
        ...head,
        values: samples().map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })),
      }),
      reset: () => this.series.clear(),
    };
  }
}
