import crypto from 'node:crypto';
import type { ApiService } from '../config.js';

/** The fixed prefix of each service's keys. */
export const KEY_PREFIX: Record<ApiService, string> = { render: 'pwr', metadata: 'pwm' };

const KEY_PATTERN = /^(pwr|pwm)_live_([0-9a-f]{32})$/;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, as zlib) of an ASCII string, as 8 lowercase hex characters. */
export function crc32Hex(text: string): string {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    const entry = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff];
    // The index is masked to a byte and the table has 256 entries.
    if (entry === undefined) throw new Error('crc32Hex: CRC table index out of range');
    crc = entry ^ (crc >>> 8);
  }
  return ((crc ^ 0xffffffff) >>> 0).toString(16).padStart(8, '0');
}

/** Generates a new key: prefix, `_live_`, 24 random hex characters (96 bits) and their CRC32. */
export function generateKey(service: ApiService): string {
  const body = `${KEY_PREFIX[service]}_live_${crypto.randomBytes(12).toString('hex')}`;
  return body + crc32Hex(body);
}

/** A syntactically valid key with a correct checksum, and the service its prefix names. */
export interface ParsedKey {
  service: ApiService;
  displayPrefix: string;
}

/** Checks format and checksum without any store access; undefined for anything malformed. */
export function parseKey(key: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  if (crc32Hex(key.slice(0, -8)) !== key.slice(-8)) return undefined;
  return { service: match[1] === 'pwr' ? 'render' : 'metadata', displayPrefix: displayPrefixOf(key) };
}

/** The part of a key that may be shown again: `pwr_live_` and the first 4 hex characters. */
export function displayPrefixOf(key: string): string {
  return key.slice(0, 'pwr_live_'.length + 4);
}

/** SHA-256 of the full key, hex: the only form of a key the store keeps. */
export function hashKey(key: string): string {
  return crypto.hash('sha256', key, 'hex');
}
