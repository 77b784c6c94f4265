/** Small statistics helpers shared by the benchmarks. */

/** The q-quantile (0..1) of a list of numbers (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The median of a list of numbers. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Formats a number with a fixed count of decimals, right-aligned to `width`. */
export function fmt(value: number, decimals = 2, width = 9): string {
  return value.toFixed(decimals).padStart(width);
}

/** Prints a section heading. */
export function heading(title: string): void {
  process.stdout.write(`\n=== ${title} ===\n`);
}

/** "met" or "NOT met", for goal lines. */
export function verdict(ok: boolean): string {
  return ok ? 'met' : 'NOT met';
}
