/** Parses Prometheus text into `name{labels sorted by name}` → value. */
export function parseMetrics(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => `${m[1]}="${m[2]}"`);
    values.set(sample(match[1]!, labels), Number(match[3]));
  }
  return values;
}

/** The map key of a sample: name and labels in sorted order. */
export function sample(name: string, labels: string[] | Record<string, string>): string {
  const list = Array.isArray(labels) ? labels : Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return `${name}{${[...list].sort().join(',')}}`;
}
