/**
 * Drops the `100 Continue` answers a server sends unasked, before the real answer, on an HTTP/1.1 client
 * socket. Browsers skip every informational (1xx) answer. undici skips them too, except 100: it never sends
 * `Expect: 100-continue`, so it takes a 100 for a broken server and drops the connection, and the fetch
 * fails. Here the socket's incoming bytes are looked at where an answer starts (the first bytes after a
 * request is written: undici sends one request at a time on a connection): a 100's head is cut out, another
 * informational head (103 Early Hints) is handed on and the next answer looked at in turn, and once a final
 * answer has begun nothing more is looked at until the next request.
 *
 * The socket's `push` (where Node hands a socket's incoming bytes to its readable side) and `write` are
 * wrapped on the instance: a stream around the socket would copy every chunk and hide the socket's own
 * properties, which undici reads.
 */
import type net from 'node:net';

type ByteTest = (c: number) => boolean;
const byte =
  (ch: string): ByteTest =>
  (c) =>
    c === ch.charCodeAt(0);
const digit: ByteTest = (c) => c >= 0x30 && c <= 0x39;
const blankOrLineEnd: ByteTest = (c) => c === 0x20 || c === 0x0d || c === 0x0a;
/** An informational status line, byte by byte: `HTTP/1.1 1xx` (any one-digit version), then a blank or the line's end. */
const STATUS_1XX: ByteTest[] = [
  ...[...'HTTP/'].map(byte),
  digit,
  byte('.'),
  digit,
  byte(' '),
  byte('1'),
  digit,
  digit,
  blankOrLineEnd,
];
/** Where the status code starts in it. */
const CODE_AT = 9;
/** Longer than any real informational head; past it the bytes are handed on as they are. */
const MAX_HEAD = 64 * 1024;

/** What starts an answer's bytes. */
type Start =
  | { kind: 'undecided' }
  | { kind: 'final' }
  /** An informational head of `length` bytes (up to its blank line). */
  | { kind: 'continue' | 'informational'; length: number };

/** Reads the start of an answer in `data`. */
function answerStart(data: Buffer): Start {
  const n = Math.min(data.length, STATUS_1XX.length);
  for (let i = 0; i < n; i++) if (!STATUS_1XX[i](data[i])) return { kind: 'final' };
  if (n < STATUS_1XX.length) return { kind: 'undecided' };
  const code = data.toString('latin1', CODE_AT, CODE_AT + 3);
  // 101 Switching Protocols ends HTTP on the connection: what follows is not an answer to look at.
  if (code === '101') return { kind: 'final' };
  // An informational answer has a head and no body: it ends at its first blank line (CRLF or a bare LF).
  for (let i = data.indexOf(0x0a, CODE_AT); i >= 0 && i + 1 < data.length; i = data.indexOf(0x0a, i + 1)) {
    const end = data[i + 1] === 0x0a ? i + 2 : data[i + 1] === 0x0d && data[i + 2] === 0x0a ? i + 3 : -1;
    if (end > 0) return { kind: code === '100' ? 'continue' : 'informational', length: end };
  }
  return { kind: 'undecided' };
}

/** Makes `socket` drop unasked `100 Continue` answers before undici reads them; returns it. */
export function dropUnaskedContinue<S extends net.Socket>(socket: S): S {
  const push = socket.push.bind(socket);
  const write = socket.write.bind(socket);
  /** The next bytes start an answer. */
  let atAnswer = false;
  /** Bytes held while they may still be (the start of) an informational head. */
  let held: Buffer | null = null;
  socket.write = ((...args: Parameters<typeof write>) => {
    atAnswer = true;
    return write(...args);
  }) as typeof socket.write;
  socket.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (!atAnswer || !Buffer.isBuffer(chunk)) {
      // The end of the input (null) hands on what was held first.
      if (held) push(held);
      held = null;
      return push(chunk, encoding);
    }
    let data = held ? Buffer.concat([held, chunk]) : chunk;
    held = null;
    let handedOn = true;
    for (;;) {
      const start = answerStart(data);
      if (start.kind === 'undecided' && data.length < MAX_HEAD) {
        held = data;
        return handedOn;
      }
      if (start.kind === 'undecided' || start.kind === 'final') {
        atAnswer = false;
        return push(data);
      }
      if (start.kind === 'informational') handedOn = push(data.subarray(0, start.length));
      data = data.subarray(start.length);
      if (data.length === 0) return handedOn;
    }
  };
  return socket;
}
