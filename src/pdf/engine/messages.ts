/**
 * What crosses between the service and a PDF worker: an operation's name and plain arguments one way;
 * its result, its progress (which part it reads), a call back for something only the service may do (a
 * timestamp through the egress policy) and a thrown error as plain fields the other way. Bytes may arrive
 * as Uint8Arrays; `asBuffers` gives them their Buffer face without copying. The bytes of a run's arguments
 * and of its result go through a file when they are large (bytes-in-file.ts); call backs cross inline.
 */
import { type BytesInFile, isPlain } from './bytes-in-file.js';

/** The service asks a worker to run an operation. */
export interface RunMessage {
  type: 'run';
  id: number;
  op: string;
  /** The arguments; their byte arrays null where `bytes` says they are in a file. */
  args: unknown;
  bytes?: BytesInFile;
  /** The file the worker writes its result's byte arrays to when they are large (none: all inline). */
  out?: string;
}

/** The service answers a worker's call back. */
export interface AnswerMessage {
  type: 'answer';
  id: number;
  call: number;
  value?: unknown;
  error?: CrossedError;
}

/** What the service sends a worker. */
export type ToWorker = RunMessage | AnswerMessage;

/** A thrown error as it crosses: its class name, message and own fields (a part's label, the problem). */
export interface CrossedError {
  kind: string;
  message: string;
  fields: Record<string, unknown>;
}

/** What a worker sends the service. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'done'; id: number; value: unknown; bytes?: BytesInFile; workMs: number }
  | { type: 'failed'; id: number; error: CrossedError }
  | { type: 'progress'; id: number; label: string | null }
  | { type: 'call'; id: number; call: number; name: string; arg: unknown };

/** An error as plain fields that survive the crossing. */
export function crossedError(error: unknown): CrossedError {
  if (!(error instanceof Error)) return { kind: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (key === 'crossedKind') continue;
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  const kind = (error as { crossedKind?: string }).crossedKind ?? error.constructor?.name ?? error.name;
  return { kind, message: error.message, fields };
}

/** An error that crossed, rebuilt as an Error keeping its kind (it crosses again as the same kind). */
export function rebuiltError(crossed: CrossedError): Error & { crossedKind: string } {
  return Object.assign(new Error(crossed.message), crossed.fields, { crossedKind: crossed.kind });
}

/** `value` with every Uint8Array in its plain objects and arrays seen as a Buffer over the same bytes. */
export function asBuffers(value: unknown): unknown {
  if (value instanceof Uint8Array) {
    return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  if (Array.isArray(value)) return value.map(asBuffers);
  if (value !== null && typeof value === 'object' && isPlain(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asBuffers(v)]));
  }
  return value;
}
