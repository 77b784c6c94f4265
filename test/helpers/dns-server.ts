/**
 * A test-only DNS server on loopback UDP: answers A queries for the names it is given and swallows
 * every other query (a resolver that never answers). It records what it was asked, so a test can see
 * which lookups reached DNS. Nothing here ever sends a query anywhere.
 */
import dgram from 'node:dgram';

/** A running loopback DNS server. */
export interface DnsServer {
  host: string;
  port: number;
  /** Question names received, in order (lower case). */
  queries: string[];
  close(): Promise<void>;
}

function questionOf(msg: Buffer): { name: string; type: number; end: number } | null {
  const labels: string[] = [];
  let at = 12;
  while (at < msg.length) {
    const len = msg[at];
    if (len === 0) break;
    if (len > 63) return null;
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('latin1'));
    at += 1 + len;
  }
  if (at + 5 > msg.length) return null;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at + 1), end: at + 5 };
}

function answer(query: Buffer, end: number, type: number, address: string | undefined): Buffer {
  const header = Buffer.from(query.subarray(0, end));
  header.writeUInt16BE(0x8180, 2); // response, recursion desired and available, NOERROR
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(type === 1 && address ? 1 : 0, 6);
  header.writeUInt16BE(0, 8);
  header.writeUInt16BE(0, 10);
  if (type !== 1 || !address) return header; // AAAA and others: the name exists, no records of that type
  const record = Buffer.alloc(16);
  record.writeUInt16BE(0xc00c, 0); // pointer to the question's name
  record.writeUInt16BE(1, 2);
  record.writeUInt16BE(1, 4);
  record.writeUInt32BE(60, 6);
  record.writeUInt16BE(4, 10);
  address.split('.').forEach((octet, i) => {
    record[12 + i] = Number(octet);
  });
  return Buffer.concat([header, record]);
}

/** Starts the server on `host:port` (port 0: any free one). `answers` maps names to IPv4 addresses. */
export async function startDnsServer(
  opts: { host?: string; port?: number; answers?: Record<string, string> } = {},
): Promise<DnsServer> {
  const host = opts.host ?? '127.0.0.1';
  const answers = new Map(Object.entries(opts.answers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const socket = dgram.createSocket('udp4');
  const queries: string[] = [];
  socket.on('message', (msg, from) => {
    const q = questionOf(msg);
    if (!q) return;
    queries.push(q.name);
    if (!answers.has(q.name)) return; // swallowed: the asker waits for its own timeout
    socket.send(answer(msg, q.end, q.type, answers.get(q.name)), from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(opts.port ?? 0, host, () => resolve());
  });
  return {
    host,
    port: socket.address().port,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
