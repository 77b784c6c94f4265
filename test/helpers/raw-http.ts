/** Raw HTTP/1.1 over a socket, for what fetch cannot do: hold a request half-sent while a service starts to drain. */
import net from 'node:net';

/** One parsed HTTP/1.1 answer read off a raw socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseAnswer(raw: string): RawAnswer {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head!.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine!.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

/**
 * Opens a connection and sends the first half of a GET's headers, so the server holds an active
 * connection (close cannot reap it as idle); `finish` sends the rest and reads the answer.
 */
export async function halfSentRequest(port: number, pathname: string, method = 'GET'): Promise<{ finish(): Promise<RawAnswer> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(`${method} ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
  let data = '';
  socket.on('data', (d) => (data += d));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    async finish() {
      socket.write('\r\n');
      await ended;
      return parseAnswer(data);
    },
  };
}
