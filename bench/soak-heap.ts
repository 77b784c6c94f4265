/**
 * Compares two V8 heap snapshots of the soaked service (`node --import tsx bench/soak-heap.ts EARLY LATE
 * [CONSTRUCTOR …]`): objects by constructor, count and self size in each, sorted by growth; then, for the
 * constructors named (default: the three that grew most in size), who retains them in the later snapshot
 * (retainer constructor and edge name, counted), so a growing table points at the thing holding it.
 */
import fs from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** One snapshot, parsed into what the comparison needs. */
export interface Heap {
  /** Per node: its class (constructor name, or `(type)` for internal kinds). */
  classOf: string[];
  selfSize: number[];
  /** Reverse edges: per node, [retainer node, edge label] pairs (weak edges left out). */
  retainers: Array<Array<[number, string]>>;
}

/** Reads a `.heapsnapshot` file. */
export function readHeap(file: string): Heap {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const { node_fields, node_types, edge_fields, edge_types } = snap.snapshot.meta;
  const nf = node_fields.length;
  const ef = edge_fields.length;
  const [typeAt, nameAt, sizeAt, edgeCountAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    node_fields.indexOf(f),
  ) as [number, number, number, number];
  const [edgeTypeAt, edgeNameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((f) => edge_fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const nodeTypes = node_types[0];
  const edgeTypes = edge_types[0];
  const count = snap.nodes.length / nf;
  const classOf: string[] = new Array(count);
  const selfSize: number[] = new Array(count);
  const retainers: Array<Array<[number, string]>> = Array.from({ length: count }, () => []);
  let edge = 0;
  for (let i = 0; i < count; i++) {
    const base = i * nf;
    const type = nodeTypes[snap.nodes[base + typeAt]!]!;
    const name = snap.strings[snap.nodes[base + nameAt]!]!;
    classOf[i] =
      type === 'object' || type === 'closure' ? (type === 'closure' ? `closure ${name || '(anonymous)'}` : name) : `(${type})`;
    selfSize[i] = snap.nodes[base + sizeAt]!;
    const edges = snap.nodes[base + edgeCountAt]!;
    for (let e = 0; e < edges; e++, edge += ef) {
      const kind = edgeTypes[snap.edges[edge + edgeTypeAt]!]!;
      if (kind === 'weak' || kind === 'shortcut') continue;
      const raw = snap.edges[edge + edgeNameAt]!;
      const label = kind === 'element' || kind === 'hidden' ? `[${kind}]` : snap.strings[raw]!;
      retainers[snap.edges[edge + toAt]! / nf]!.push([i, label]);
    }
  }
  return { classOf, selfSize, retainers };
}

/** Count and summed self size per class. */
function tally(heap: Heap): Map<string, { count: number; size: number }> {
  const byClass = new Map<string, { count: number; size: number }>();
  heap.classOf.forEach((c, i) => {
    const t = byClass.get(c) ?? { count: 0, size: 0 };
    t.count += 1;
    t.size += heap.selfSize[i]!;
    byClass.set(c, t);
  });
  return byClass;
}

/** The classes sorted by growth in self size from `early` to `late`. */
export function growth(early: Heap, late: Heap): Array<{ name: string; count: [number, number]; size: [number, number] }> {
  const a = tally(early);
  const b = tally(late);
  const names = new Set([...a.keys(), ...b.keys()]);
  return [...names]
    .map((name) => {
      const x = a.get(name) ?? { count: 0, size: 0 };
      const y = b.get(name) ?? { count: 0, size: 0 };
      return { name, count: [x.count, y.count] as [number, number], size: [x.size, y.size] as [number, number] };
    })
    .sort((p, q) => q.size[1] - q.size[0] - (p.size[1] - p.size[0]));
}

/** Who holds the objects of class `name`: "retainer class . edge" counted, most first. */
export function retainersOf(heap: Heap, name: string, top = 8): Array<[string, number]> {
  const counted = new Map<string, number>();
  heap.classOf.forEach((c, i) => {
    if (c !== name) return;
    for (const [from, label] of heap.retainers[i]!) {
      const key = `${heap.classOf[from]} .${label}`;
      counted.set(key, (counted.get(key) ?? 0) + 1);
    }
  });
  return [...counted].sort((p, q) => q[1] - p[1]).slice(0, top);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const [earlyFile, lateFile, ...named] = process.argv.slice(2);
  if (!earlyFile || !lateFile) {
    console.error('usage: node --import tsx bench/soak-heap.ts EARLY.heapsnapshot LATE.heapsnapshot [CONSTRUCTOR …]');
    process.exit(2);
  }
  const early = readHeap(earlyFile);
  const late = readHeap(lateFile);
  const total = (h: Heap) => h.selfSize.reduce((n, s) => n + s, 0) / 1048576;
  process.stdout.write(
    `heap: ${total(early).toFixed(1)} MB in ${early.classOf.length} objects → ${total(late).toFixed(1)} MB in ${late.classOf.length}\n`,
  );
  process.stdout.write('constructor                                         count before → after     self KB before → after\n');
  const grew = growth(early, late);
  for (const g of [...grew.slice(0, 25), ...grew.slice(-5)]) {
    process.stdout.write(
      `${g.name.slice(0, 50).padEnd(50)} ${String(g.count[0]).padStart(8)} → ${String(g.count[1]).padEnd(8)} ${(g.size[0] / 1024).toFixed(0).padStart(8)} → ${(g.size[1] / 1024).toFixed(0)}\n`,
    );
  }
  for (const name of named.length > 0 ? named : grew.slice(0, 3).map((g) => g.name)) {
    process.stdout.write(
      `\nretainers of ${name}:\n  before: ${retainersOf(early, name)
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ')}\n`,
    );
    process.stdout.write(
      `  after:  ${retainersOf(late, name)
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ')}\n`,
    );
  }
}
