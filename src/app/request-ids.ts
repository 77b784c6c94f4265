/**
 * Request ids: `<prefix>_` and 24 random hex characters (`rnd_…` on the render service, where the id is
 * also the render's, `req_…` on the metadata service), sent on every answer.
 */
import crypto from 'node:crypto';
import type { ApiService } from '../config.js';

/** Random bytes for request ids, drawn in batches: one `randomBytes` call per id costs more than the id is worth. */
const ID_BYTES = 12;
const idPool = Buffer.alloc(ID_BYTES * 512);
let idOffset = idPool.length;

/** `<prefix>_` and 24 random hex characters. */
export function randomRequestId(prefix: string): string {
  if (idOffset === idPool.length) {
    crypto.randomFillSync(idPool);
    idOffset = 0;
  }
  idOffset += ID_BYTES;
  return `${prefix}_${idPool.toString('hex', idOffset - ID_BYTES, idOffset)}`;
}

/** The prefix of a service's request ids. */
export function requestIdPrefix(service: ApiService): 'rnd' | 'req' {
  return service === 'render' ? 'rnd' : 'req';
}
