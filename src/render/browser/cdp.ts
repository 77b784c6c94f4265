/**
 * The few DevTools-protocol calls a render makes on its page session, without puppeteer's Page: that
 * object tracks frames, execution contexts and an isolated world of its own on every navigation, about
 * 10 ms of CPU per render between Chromium and Node that a print-only page never uses.
 */
import type { CDPSession } from 'puppeteer-core';

/** Evaluates `expression` in the page's main world, awaits a returned promise, and returns its value. */
export async function evaluate(session: CDPSession, expression: string): Promise<unknown> {
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
    expression,
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
}

/**
 * Evaluates `expression` in the execution context `contextId` (an isolated world), awaits a returned
 * promise, and returns its value.
 */
export async function evaluateIn(session: CDPSession, contextId: number, expression: string): Promise<unknown> {
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
    expression,
    contextId,
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
}

/**
 * Calls `declaration` (a function's source) with `this` bound to the remote object `objectId` and the
 * JSON values `args` as its arguments, awaits a returned promise, and returns its value: what a page's
 * scripts cannot reach (no global leads to the object) stays between the calls of one render.
 */
export async function callOn(session: CDPSession, objectId: string, declaration: string, args: unknown[] = []): Promise<unknown> {
  const { result, exceptionDetails } = await session.send('Runtime.callFunctionOn', {
    functionDeclaration: declaration,
    objectId,
    arguments: args.map((value) => ({ value })),
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
}

/**
 * The call expression that runs `fn` in the page with JSON-serializable `args` (a function argument is
 * passed as its source, bound by the same rules as `fn`). Under tsx (esbuild's
 * keepNames) the source of a function that names its inner functions calls a `__name` helper, which the
 * page does not have: a local no-op stands in for it, without touching the page's globals.
 */
export function callExpression(fn: (...args: never[]) => unknown, ...args: unknown[]): string {
  return `((__name) => (${fn.toString()})(${args.map((arg) => (typeof arg === 'function' ? arg.toString() : JSON.stringify(arg))).join(',')}))((f) => f)`;
}

/** Bytes asked for by each IO.read. */
const READ_CHUNK = 1 << 24;

/**
 * Reads a protocol stream (a printed PDF) to its end and closes it. Chromium says `eof` only on a read
 * that finds nothing left, so a PDF shorter than a chunk would take a second round trip to learn it has
 * it all: a short chunk that ends with the PDF's end-of-file marker already is the end (Chromium writes
 * a PDF in one piece, with one marker at its very end). The close is not waited for.
 */
export async function readStream(session: CDPSession, handle: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for (;;) {
      const { data, base64Encoded, eof } = await session.send('IO.read', { handle, size: READ_CHUNK });
      const chunk = Buffer.from(data, base64Encoded ? 'base64' : 'utf8');
      chunks.push(chunk);
      if (eof || (chunk.length < READ_CHUNK && endsPdf(chunk))) return Buffer.concat(chunks);
    }
  } finally {
    session.send('IO.close', { handle }).catch(() => undefined);
  }
}

/** Whether `chunk` ends with `%%EOF` and at most an end of line after it. */
function endsPdf(chunk: Buffer): boolean {
  const tail = chunk.subarray(Math.max(0, chunk.length - 8)).toString('latin1');
  return /%%EOF\r?\n?$/.test(tail);
}
