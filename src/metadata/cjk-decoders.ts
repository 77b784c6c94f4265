/**
 * The multi-byte legacy decoders of WHATWG Encoding (Shift_JIS, EUC-JP, EUC-KR, Big5, GBK/gb18030) with
 * the browser's handling of bytes that do not form a character. Node's ICU converters differ there: ICU's
 * EUC-JP and EUC-KR turn 0x80–0x9F into C1 controls where a browser shows U+FFFD, its Big5 maps unassigned
 * pairs to private-use characters, and after an invalid lead byte they disagree on which byte is kept.
 * So the WHATWG state machines run here, and a converter only decodes one complete sequence at a time; a
 * sequence it cannot map is an error, as a null index entry is in WHATWG. The converters: ICU for the
 * Japanese and Chinese ones; iconv-lite for EUC-KR and Big5, whose WHATWG indexes are windows-949 (with
 * the UHC Hangul ICU's EUC-KR lacks) and Big5-HKSCS.
 */
import iconv from 'iconv-lite';
import type { Decoder } from './decoder.js';

const ERROR = '\uFFFD';

function isAscii(b: number): boolean {
  return b < 0x80;
}

function in_(b: number, lo: number, hi: number): boolean {
  return b >= lo && b <= hi;
}

/** Decodes one complete byte sequence, or returns null when it maps to no character. */
type UnitDecoder = (...bytes: number[]) => string | null;

/**
 * Remembers the answers for two-byte sequences (at most 65,536 per encoding): a converter call costs about
 * a microsecond, a lookup a few tens of nanoseconds, and a page repeats its characters.
 */
function remembered(decode: (bytes: number[]) => string | null): UnitDecoder {
  const pairs = new Map<number, string | null>();
  return (...bytes) => {
    const lead = bytes[0];
    const trail = bytes[1];
    if (bytes.length !== 2 || lead === undefined || trail === undefined) return decode(bytes);
    const key = (lead << 8) | trail;
    let text = pairs.get(key);
    if (text === undefined) {
      text = decode(bytes);
      pairs.set(key, text);
    }
    return text;
  };
}

function icuUnit(name: string): UnitDecoder {
  const icu = new TextDecoder(name, { fatal: true, ignoreBOM: true });
  return remembered((bytes) => {
    try {
      const s = icu.decode(Uint8Array.from(bytes));
      return s === '' || s.includes(ERROR) ? null : s;
    } catch {
      return null;
    }
  });
}

function iconvUnit(name: string): UnitDecoder {
  return remembered((bytes) => {
    const s = iconv.decode(Buffer.from(bytes), name);
    return s === '' || s.includes(ERROR) ? null : s;
  });
}

/**
 * The decode loop shared by all of them: `step` sees each byte with the lead state and returns text, or null
 * for "need the next byte"; it may give bytes back to be read again first (`again`, WHATWG's "prepend").
 */
interface Step {
  (byte: number, again: (...bytes: number[]) => void): string | null;
  /** The input ended: the text for a pending lead (an error), or ''. */
  end(): string;
}

function run(bytes: Uint8Array, step: Step): string {
  let out = '';
  const back: number[] = [];
  const again = (...bs: number[]): void => {
    back.unshift(...bs);
  };
  for (let i = 0; ; ) {
    // Bytes put back come first; `undefined` once both are used up.
    const byte = back.length > 0 ? back.shift() : bytes[i++];
    if (byte === undefined) break;
    const text = step(byte, again);
    if (text !== null) out += text;
  }
  return out + step.end();
}

/**
 * A decoder of one-byte characters and lead + trail pairs (Shift_JIS, EUC-KR, Big5): `single` gives the text
 * of a byte on its own, or undefined for a lead byte; `pair` the text of a lead and the next byte, or null
 * when they form no character (then a trail that is ASCII is read again on its own).
 */
function leadTrail(single: (byte: number) => string | undefined, pair: (lead: number, byte: number) => string | null): Decoder {
  return {
    decode(bytes) {
      let lead = 0;
      const step = Object.assign(
        (byte: number, again: (...bytes: number[]) => void): string | null => {
          if (lead !== 0) {
            const l = lead;
            lead = 0;
            const text = pair(l, byte);
            if (text !== null) return text;
            if (isAscii(byte)) again(byte);
            return ERROR;
          }
          const text = single(byte);
          if (text !== undefined) return text;
          lead = byte;
          return null;
        },
        {
          end: () => {
            if (lead === 0) return '';
            lead = 0;
            return ERROR;
          },
        },
      );
      return run(bytes, step);
    },
  };
}

function shiftJis(): Decoder {
  const unit = icuUnit('shift_jis');
  return leadTrail(
    (byte) => {
      if (isAscii(byte) || byte === 0x80) return String.fromCharCode(byte);
      if (in_(byte, 0xa1, 0xdf)) return String.fromCharCode(0xff61 - 0xa1 + byte);
      return in_(byte, 0x81, 0x9f) || in_(byte, 0xe0, 0xfc) ? undefined : ERROR;
    },
    (lead, byte) => {
      if (!in_(byte, 0x40, 0x7e) && !in_(byte, 0x80, 0xfc)) return null;
      const pointer = (lead - (lead < 0xa0 ? 0x81 : 0xc1)) * 188 + byte - (byte < 0x7f ? 0x40 : 0x41);
      // End-user-defined characters map to the private use area.
      if (pointer >= 8836 && pointer <= 10715) return String.fromCharCode(0xe000 - 8836 + pointer);
      return unit(lead, byte);
    },
  );
}

function eucJp(): Decoder {
  const unit = icuUnit('euc-jp');
  return {
    decode(bytes) {
      let lead = 0;
      let jis0212 = false;
      const step = Object.assign(
        (byte: number, again: (...bytes: number[]) => void): string | null => {
          if (lead === 0x8e && in_(byte, 0xa1, 0xdf)) {
            lead = 0;
            return String.fromCharCode(0xff61 - 0xa1 + byte);
          }
          if (lead === 0x8f && in_(byte, 0xa1, 0xfe)) {
            jis0212 = true;
            lead = byte;
            return null;
          }
          if (lead !== 0) {
            const l = lead;
            lead = 0;
            let text: string | null = null;
            if (in_(l, 0xa1, 0xfe) && in_(byte, 0xa1, 0xfe)) text = jis0212 ? unit(0x8f, l, byte) : unit(l, byte);
            jis0212 = false;
            if (text !== null) return text;
            if (isAscii(byte)) again(byte);
            return ERROR;
          }
          if (isAscii(byte)) return String.fromCharCode(byte);
          if (byte === 0x8e || byte === 0x8f || in_(byte, 0xa1, 0xfe)) {
            lead = byte;
            return null;
          }
          return ERROR;
        },
        {
          end: () => {
            if (lead === 0) return '';
            lead = 0;
            jis0212 = false;
            return ERROR;
          },
        },
      );
      return run(bytes, step);
    },
  };
}

/** EUC-KR and Big5: one lead byte 0x81–0xFE, then a trail byte in `trail`. */
function doubleByte(unit: UnitDecoder, trail: (byte: number) => boolean): Decoder {
  return leadTrail(
    (byte) => (isAscii(byte) ? String.fromCharCode(byte) : in_(byte, 0x81, 0xfe) ? undefined : ERROR),
    (lead, byte) => (trail(byte) ? unit(lead, byte) : null),
  );
}

/** gb18030, which WHATWG also uses for GBK: two-byte and four-byte sequences, 0x80 is €. */
function gb18030(): Decoder {
  const unit = icuUnit('gb18030');
  return {
    decode(bytes) {
      let first = 0;
      let second = 0;
      let third = 0;
      const step = Object.assign(
        (byte: number, again: (...bytes: number[]) => void): string | null => {
          if (third !== 0) {
            const [f, s, t] = [first, second, third];
            first = second = third = 0;
            if (!in_(byte, 0x30, 0x39)) {
              // Error; the second, third and this byte are read again.
              again(s, t, byte);
              return ERROR;
            }
            return unit(f, s, t, byte) ?? ERROR;
          }
          if (second !== 0) {
            if (in_(byte, 0x81, 0xfe)) {
              third = byte;
              return null;
            }
            const s = second;
            first = second = 0;
            again(s, byte);
            return ERROR;
          }
          if (first !== 0) {
            if (in_(byte, 0x30, 0x39)) {
              second = byte;
              return null;
            }
            const l = first;
            first = 0;
            const text = in_(byte, 0x40, 0x7e) || in_(byte, 0x80, 0xfe) ? unit(l, byte) : null;
            if (text !== null) return text;
            if (isAscii(byte)) again(byte);
            return ERROR;
          }
          if (isAscii(byte)) return String.fromCharCode(byte);
          if (byte === 0x80) return '\u20ac';
          if (in_(byte, 0x81, 0xfe)) {
            first = byte;
            return null;
          }
          return ERROR;
        },
        {
          end: (): string => {
            if (first === 0 && second === 0 && third === 0) return '';
            first = second = third = 0;
            return ERROR;
          },
        },
      );
      return run(bytes, step);
    },
  };
}

/** WHATWG's decoder for `encoding` when it is one of the multi-byte legacy encodings, else null. */
export function legacyMultiByteDecoder(encoding: string): Decoder | null {
  switch (encoding) {
    case 'shift_jis':
      return shiftJis();
    case 'euc-jp':
      return eucJp();
    case 'euc-kr':
      return doubleByte(iconvUnit('cp949'), (b) => in_(b, 0x41, 0xfe));
    case 'big5':
      return doubleByte(iconvUnit('big5hkscs'), (b) => in_(b, 0x40, 0x7e) || in_(b, 0xa1, 0xfe));
    case 'gbk':
    case 'gb18030':
      return gb18030();
    default:
      return null;
  }
}
