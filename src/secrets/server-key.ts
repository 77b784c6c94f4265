/**
 * Where the server's sealing key comes from. SECRETS_KEY when set (every instance at scale is given the
 * same one); else, on the embedded store, a key file in the data directory, made on the first start
 * (mode 0600), so signing and protected jobs work after `npm start` with nothing set. PostgreSQL without
 * SECRETS_KEY has none: instances that share a database cannot each make their own.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { ConfigError } from '../config-env.js';
import { parseServerKey } from '../config-secrets-key.js';
import { SecretBox } from './sealing.js';

/** The embedded store's key file, inside PAGEWORKS_DATA_DIR. */
export const KEY_FILE = 'secrets.key';
/** The key a rotation of the embedded store's key is moving to, kept until the rotation is done (secrets/rotate.ts). */
export const NEXT_KEY_FILE = 'secrets.key.next';

/** The server's key and where it came from (for the start-up log). */
export interface ServerKey {
  box: SecretBox;
  origin: { kind: 'variable' } | { kind: 'file'; file: string; created: boolean };
}

/** A fresh key file's contents: 64 hex digits and a new line. */
export function newKeyText(): string {
  return `${crypto.randomBytes(32).toString('hex')}\n`;
}

/** Reads a key file, or makes it (mode 0600) when there is none; `created` says which. */
export function readOrCreateKeyFile(file: string): { key: Buffer; created: boolean } {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let created = false;
  try {
    // 'wx': two processes starting on the same data directory never write two keys.
    fs.writeFileSync(file, newKeyText(), { flag: 'wx', mode: 0o600 });
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return { key: readKeyFile(file), created };
}

/** The key in a key file; a file others can read is made the owner's alone. */
export function readKeyFile(file: string): Buffer {
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  return parseServerKey(fs.readFileSync(file, 'utf8'), `the key file ${file}`);
}

/**
 * The server's key for this configuration, or undefined on PostgreSQL without SECRETS_KEY. On the
 * embedded store it makes the key file on the first start. A rotation left half done (its next key's
 * file still there) opens with that key too.
 */
export function loadServerKey(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'secretsKey' | 'secretsKeyPrevious'>,
): ServerKey | undefined {
  if (config.secretsKey) {
    return { box: new SecretBox(config.secretsKey, config.secretsKeyPrevious), origin: { kind: 'variable' } };
  }
  if (config.databaseUrl) return undefined;
  const file = path.join(config.dataDir, KEY_FILE);
  const { key, created } = readOrCreateKeyFile(file);
  const next = path.join(config.dataDir, NEXT_KEY_FILE);
  const pending = fs.existsSync(next) ? [readKeyFile(next)] : [];
  return { box: new SecretBox(key, [...config.secretsKeyPrevious, ...pending]), origin: { kind: 'file', file, created } };
}

/**
 * At scale every instance that seals or opens (render, render-worker, dashboard) must be given the same
 * key: without one it would not start, rather than refuse uploads and protected jobs for ever.
 */
export function requireServerKey(config: Pick<Config, 'databaseUrl' | 'secretsKey' | 'services'>): void {
  if (!config.databaseUrl || config.secretsKey || config.services.every((s) => s === 'metadata')) return;
  throw new ConfigError(
    'SECRETS_KEY',
    'required with DATABASE_URL: give every instance the same 32-byte key (openssl rand -hex 32); it seals signing keys, job passwords and webhook secrets at rest',
  );
}

/** The start-up log line that says where the key is (never the key). */
export function serverKeyLine(key: ServerKey | undefined): string {
  if (!key) return 'no SECRETS_KEY: signing certificates and protected jobs are refused';
  if (key.origin.kind === 'variable') return 'secrets at rest are sealed with SECRETS_KEY';
  const { file, created } = key.origin;
  return created
    ? `made the server's secrets key ${file} (mode 0600): it seals signing keys, job passwords and webhook secrets at rest; back it up with the store`
    : `secrets at rest are sealed with the key in ${file}`;
}
