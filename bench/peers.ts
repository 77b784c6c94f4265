/**
 * The peer libraries the metadata bench compares against (metascraper and its rules, open-graph-scraper).
 * They live in bench/peers with their own lock file, so `npm ci` for `npm start` and `npm test` never
 * installs them (metascraper pulls in re2, a C++ build); the first bench run that needs them installs them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const PEERS = path.join(import.meta.dirname, 'peers');

/** open-graph-scraper's entry point, as far as the bench uses it. */
export type Ogs = (options: { html: string } | { url: string }) => Promise<{ error: boolean }>;
/** A metascraper rule set. */
type Rules = unknown;
/** The peers, typed as far as the bench calls them. */
export interface Peers {
  ogs: Ogs;
  createMetascraper: (rules: Rules[]) => (input: { html: string; url: string }) => Promise<unknown>;
  metascraperTitle: () => Rules;
  metascraperDescription: () => Rules;
  metascraperImage: () => Rules;
  metascraperUrl: () => Rules;
}

function mtime(file: string): number {
  return fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** Installs bench/peers from its lock file when missing or older than the lock, then imports the peers. */
export async function loadPeers(): Promise<Peers> {
  const stamp = path.join(PEERS, 'node_modules', '.package-lock.json');
  if (mtime(stamp) < mtime(path.join(PEERS, 'package-lock.json'))) {
    process.stderr.write('[bench] installing the peer libraries it compares against: npm ci --prefix bench/peers\n');
    const res = spawnSync('npm', ['ci', '--prefix', PEERS, '--no-audit', '--no-fund', '--loglevel=error'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (res.status !== 0) throw new Error(`npm ci --prefix bench/peers failed (exit ${res.status ?? res.signal})`);
  }
  return (await import(pathToFileURL(path.join(PEERS, 'index.js')).href)) as Peers;
}
