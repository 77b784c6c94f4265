/**
 * Loopback canaries for the security suite: an HTTP server that counts every TCP connection and request
 * (and serves a marker text, a red SVG and storage-probing pages), and a UDP socket that counts datagrams.
 */
import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Text a canary response carries; finding it in a PDF means a forbidden request got through. */
export const CANARY_TEXT = 'CANARY-LEAKED-7f3a';

/** A running canary and what reached it. */
export interface Canary {
  port: number;
  udpPort: number;
  connections: number;
  udpDatagrams: number;
  requests: Array<{ url: string; cookie?: string }>;
  close(): Promise<void>;
}

const RED_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#ff0000"/></svg>';

/** Page that stores a value in every storage it can reach, then prints what it reads back. */
const STORE_PAGE = `<!doctype html><body><img src="/slow"><script>
document.cookie = 'jscookie=SECRET-COOKIE-A; max-age=3600';
localStorage.setItem('k', 'SECRET-LOCAL-A');
sessionStorage.setItem('k', 'SECRET-SESSION-A');
const open = indexedDB.open('db', 1);
open.onupgradeneeded = () => open.result.createObjectStore('s');
open.onsuccess = () => {
  const tx = open.result.transaction('s', 'readwrite');
  tx.objectStore('s').put('SECRET-IDB-A', 'k');
  tx.oncomplete = () => {
    const read = open.result.transaction('s').objectStore('s').get('k');
    read.onsuccess = () => document.body.append('stored: ' + document.cookie + ' ' + localStorage.getItem('k') + ' ' + read.result);
  };
};
</script></body>`;

/** Page that prints whatever it can find of STORE_PAGE's values. */
const READ_PAGE = `<!doctype html><body><img src="/slow"><script>
const found = ['cookie=' + document.cookie, 'local=' + localStorage.getItem('k'), 'session=' + sessionStorage.getItem('k')];
const open = indexedDB.open('db', 1);
open.onupgradeneeded = () => open.result.createObjectStore('s');
open.onsuccess = () => {
  const read = open.result.transaction('s').objectStore('s').get('k');
  read.onsuccess = () => document.body.append('probe: ' + found.join(' ') + ' idb=' + read.result);
};
</script></body>`;

/** Starts the HTTP and UDP canaries on 127.0.0.1. */
export async function startCanary(): Promise<Canary> {
  const server = http.createServer((req, res) => {
    canary.requests.push({ url: req.url ?? '', cookie: req.headers.cookie });
    const path = (req.url ?? '').replace(/^https?:\/\/[^/]+/, '');
    if (path.startsWith('/red.svg')) {
      res.writeHead(200, { 'content-type': 'image/svg+xml' });
      return res.end(RED_SVG);
    }
    if (path.startsWith('/big.svg')) {
      // ~3 MB: a red square behind a long comment, for the per-render byte cap.
      res.writeHead(200, { 'content-type': 'image/svg+xml' });
      return res.end(RED_SVG.replace('<rect', `<!--${'x'.repeat(3 * 1024 * 1024)}--><rect`));
    }
    if (path.startsWith('/slow')) {
      setTimeout(() => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(RED_SVG), 400);
      return undefined;
    }
    if (path.startsWith('/store')) {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'hdrcookie=SECRET-HEADER-A; Max-Age=3600; Path=/' });
      return res.end(STORE_PAGE);
    }
    if (path.startsWith('/read')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(READ_PAGE);
    }
    res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' });
    res.end(`<p>${CANARY_TEXT}</p>`);
  });
  server.on('connection', () => (canary.connections += 1));
  server.on('upgrade', (_req, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => (canary.udpDatagrams += 1));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  const canary: Canary = {
    port: (server.address() as AddressInfo).port,
    udpPort: udp.address().port,
    connections: 0,
    udpDatagrams: 0,
    requests: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
  return canary;
}
