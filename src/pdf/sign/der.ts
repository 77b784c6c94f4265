/**
 * The few DER (ITU-T X.690) pieces a CMS signature needs: encoding tagged values from their parts, and
 * reading a value's tag, extent and children. Signatures hash exact bytes, so parts are kept as the
 * bytes they were read from (a certificate's issuer Name is copied, never re-encoded).
 */

/** A DER value as read: its tag byte, the whole encoding and the contents. */
export interface DerNode {
  tag: number;
  /** The complete encoding (tag, length, contents). */
  bytes: Buffer;
  contents: Buffer;
}

/** Tags used by CMS and X.509. */
export const TAG = {
  INTEGER: 0x02,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTC_TIME: 0x17,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const out: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) out.unshift(n & 0xff);
  return Buffer.from([0x80 | out.length, ...out]);
}

/** Encodes a value of `tag` whose contents are the given parts, concatenated. */
export function der(tag: number, ...parts: Buffer[]): Buffer {
  const contents = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(contents.length), contents]);
}

/** A SEQUENCE of the parts. */
export const seq = (...parts: Buffer[]): Buffer => der(TAG.SEQUENCE, ...parts);

/** A SET OF the parts, sorted by their encodings as DER requires. */
export const setOf = (...parts: Buffer[]): Buffer => der(TAG.SET, ...[...parts].sort(Buffer.compare));

/** A context-specific constructed tag `[n]` around the parts. */
export const explicit = (n: number, ...parts: Buffer[]): Buffer => der(0xa0 | n, ...parts);

/** An OCTET STRING. */
export const octets = (data: Buffer): Buffer => der(TAG.OCTET_STRING, data);

/** An INTEGER from a small non-negative number. */
export function int(n: number): Buffer {
  const bytes: number[] = [];
  for (let v = n; ; v = Math.floor(v / 256)) {
    bytes.unshift(v & 0xff);
    if (v < 256) break;
  }
  if (bytes[0] & 0x80) bytes.unshift(0);
  return der(TAG.INTEGER, Buffer.from(bytes));
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [];
    for (let v = arc; ; v = Math.floor(v / 128)) {
      chunk.unshift((v & 0x7f) | (chunk.length ? 0x80 : 0));
      if (v < 128) break;
    }
    out.push(...chunk);
  }
  return der(TAG.OID, Buffer.from(out));
}

/** The dotted form of an OBJECT IDENTIFIER's contents. */
export function oidText(contents: Buffer): string {
  const arcs: number[] = [Math.floor(contents[0] / 40), contents[0] % 40];
  let v = 0;
  for (const byte of contents.subarray(1)) {
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(v);
      v = 0;
    }
  }
  return arcs.join('.');
}

/** An AlgorithmIdentifier without parameters (or with NULL parameters when `withNull`). */
export const algorithm = (dotted: string, withNull = false): Buffer =>
  withNull ? seq(oid(dotted), der(TAG.NULL)) : seq(oid(dotted));

/** Reads the DER value starting at `offset`. */
export function readDer(data: Buffer, offset = 0): DerNode {
  const tag = data[offset];
  let pos = offset + 1;
  let length = data[pos++];
  if (length === undefined || tag === undefined) throw new Error('DER: truncated');
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: unsupported length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + data[pos++];
  }
  if (pos + length > data.length) throw new Error('DER: value runs past its container');
  return { tag, bytes: data.subarray(offset, pos + length), contents: data.subarray(pos, pos + length) };
}

/** The values a constructed value holds, in order. */
export function children(node: DerNode): DerNode[] {
  const out: DerNode[] = [];
  for (let pos = 0; pos < node.contents.length; ) {
    const child = readDer(node.contents, pos);
    out.push(child);
    pos += child.bytes.length;
  }
  return out;
}
