/** Webhook delivery outcomes as a Prometheus counter on the render service's registry. */
import { Counter, type Registry } from 'prom-client';

/** How one attempt ended: delivered, failed (another attempt is scheduled), or exhausted (the last one failed). */
export type WebhookOutcome = 'delivered' | 'failed' | 'exhausted';

/** Counts each attempt's outcome. */
export type WebhookMetrics = (outcome: WebhookOutcome) => void;

/** Registers `pageworks_webhook_deliveries_total{outcome}` and returns what moves it. */
export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  const deliveries = new Counter({
    name: 'pageworks_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, failed (retried later) or exhausted (given up)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Every outcome is exported from the start, at zero, so a rate() over it never starts from a gap.
  const children = {
    delivered: deliveries.labels({ outcome: 'delivered' }),
    failed: deliveries.labels({ outcome: 'failed' }),
    exhausted: deliveries.labels({ outcome: 'exhausted' }),
  };
  for (const child of Object.values(children)) child.inc(0);
  return (outcome) => children[outcome].inc();
}
