/**
 * Copies the objects one part needs into the assembly: every reference gets the assembly's own number,
 * objects are copied once, the first time they are reached, and stream data byte for byte. While copying,
 * what would collide with another part is renamed or shifted: named destinations (/Dest, GoTo /D),
 * structure element IDs (and table cells' /Headers naming them), and the keys pages, annotations and
 * forms hold into the parent tree (/StructParents, /StructParent). What acts on the reader is left out as
 * active-content.ts found it.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import {
  isDict,
  nameOf,
  type PdfDict,
  PdfName,
  PdfRaw,
  PdfRef,
  type PdfValue,
  raw,
  stringBytes,
} from '../profiles/pdf-objects.js';
import { OBJECT_HEAD, WHITE_SPACE } from '../profiles/pdf-tokens.js';
import type { ActiveContent } from './active-content.js';
import { copyObjectText, type TextRules } from './copy-text.js';
import type { PdfWriter } from './pdf-writer.js';
import { type AssembleInputError, damaged } from './read-part.js';
import { hexString, nameKey } from './trees.js';

/** How a part's values change on their way into the assembly. */
export interface CopyRules {
  /** Added to every /StructParent(s) key (the parent trees of earlier parts come first). */
  structParentOffset: number;
  /** A named destination's new name (byte strings); names not listed keep theirs. */
  dests: Map<string, string>;
  /** A structure element ID's new value; IDs not listed keep theirs. */
  ids: Map<string, string>;
  /** What the part carries that acts on its reader, left out of the copy. */
  active?: ActiveContent;
  /**
   * What references to an object become, when the caller decides it for many objects at once (a file of
   * a split: its pages taken out, the structure elements they take with them); undefined copies the object.
   */
  mapped?: (num: number) => PdfValue | undefined;
}

const NULL = raw('null');
/** What must follow a stream's data where its /Length ends. */
const STREAM_END = new RegExp(`^${WHITE_SPACE}*endstream`);

/** One part's objects on their way into the assembly. */
export class PartCopier {
  private readonly map = new Map<number, PdfValue>();
  private readonly overrides = new Map<number, PdfDict>();
  private readonly queue: number[] = [];
  private readonly textRules: TextRules;

  constructor(
    readonly file: PdfFile,
    private readonly out: PdfWriter,
    private readonly label: string,
    readonly rules: CopyRules,
  ) {
    this.textRules = {
      ref: (num, gen) => {
        const ref = this.ref(new PdfRef(num, gen));
        return ref instanceof PdfRef ? `${ref.num} 0 R` : 'null';
      },
      structParentOffset: rules.structParentOffset,
      renameId: (token) => {
        if (rules.ids.size === 0) return undefined;
        const renamed = rules.ids.get(stringBytes(token).toString('latin1'));
        return renamed === undefined ? undefined : hexString(renamed).text;
      },
    };
  }

  /**
   * Makes references to `num` point at `ref` without copying `num` (a part's catalog, page tree nodes,
   * roots; `role` names which). An object already met as something else (a page that is also the outline
   * root) cannot be both: its copy would land in the redirected place, and its own place stay empty.
   */
  redirect(num: number, ref: PdfRef, role: string): void {
    const known = this.map.get(num);
    if (known !== undefined && known !== ref) throw new Error(`object ${num} is ${role} and also something else`);
    this.map.set(num, ref);
  }

  /** Makes references to `num` null and leaves the object out (a page taken out, and what only it held). */
  omit(num: number): void {
    this.map.set(num, NULL);
  }

  /** What `override` set for `num`, if anything. */
  overridden(num: number): PdfDict | undefined {
    return this.overrides.get(num);
  }

  /** Copies `value` instead of what the part holds for `num` (a page with its inherited attributes). */
  override(num: number, value: PdfDict): void {
    this.overrides.set(num, value);
  }

  /** The assembly's reference for a part's object (null for an object the part does not have at that generation). */
  ref(old: PdfRef): PdfValue {
    if (this.rules.active?.drops.has(old.num) || !this.file.current(old)) return NULL;
    const known = this.map.get(old.num);
    if (known) return known;
    const mapped = this.rules.mapped?.(old.num);
    if (mapped !== undefined) return mapped;
    if (!this.file.listed(old.num)) return NULL;
    const ref = this.out.allocate();
    this.map.set(old.num, ref);
    this.queue.push(old.num);
    return ref;
  }

  /** A value with its references mapped and the renames applied; referenced objects are queued. */
  value(value: PdfValue | undefined): PdfValue {
    if (value === undefined) return NULL;
    if (value instanceof PdfRef) return this.ref(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (!isDict(value)) return value;
    const out: PdfDict = new Map();
    const source = this.rules.active ? this.rules.active.clean(value) : value;
    for (const [key, v] of source) out.set(key, this.value(v));
    this.shiftKey(out, 'StructParents');
    this.shiftKey(out, 'StructParent');
    if (out.has('Dest')) out.set('Dest', this.dest(out.get('Dest') as PdfValue));
    if (nameOf(value.get('S')) === 'GoTo' && out.has('D')) out.set('D', this.dest(out.get('D') as PdfValue));
    if (value.get('S') instanceof PdfName && out.get('ID') instanceof PdfRaw) out.set('ID', this.id(out.get('ID') as PdfRaw));
    const headers = out.get('Headers');
    if (Array.isArray(headers))
      out.set(
        'Headers',
        headers.map((h) => (h instanceof PdfRaw ? this.id(h) : h)),
      );
    return out;
  }

  /** Copies every queued object (and what they reach) into the writer. */
  drain(): void {
    for (let num = this.queue.pop(); num !== undefined; num = this.queue.pop()) {
      if (!this.overrides.has(num) && !this.rules.active?.touched.has(num) && this.copyText(num)) continue;
      const object = this.file.get(num);
      if (!object) throw this.damaged(`object ${num} is not where its cross-reference table says`);
      const value = this.value(this.overrides.get(num) ?? object.value);
      const ref = this.map.get(num) as PdfRef;
      if (!object.stream) {
        this.out.set(ref, value);
        continue;
      }
      const { start, length } = object.stream;
      const after = this.file.text.slice(start + length, start + length + 24);
      if (!STREAM_END.test(after)) throw this.damaged(`stream ${num} does not end where its /Length says`);
      this.out.set(ref, value, this.file.bytes.subarray(start, start + length));
    }
  }

  /** Copies object `num` by its text (copy-text.ts), when it is not one that needs parsing. */
  private copyText(num: number): boolean {
    const at = this.file.offset(num);
    if (at === undefined) return false;
    const head = OBJECT_HEAD.exec(this.file.text.slice(at, at + 40));
    if (!head || Number(head[1]) !== num) return false;
    const body = copyObjectText(this.file.text, at + head[0].length, this.textRules);
    if (body === undefined) return false;
    this.out.setText(this.map.get(num) as PdfRef, body);
    return true;
  }

  private shiftKey(dict: PdfDict, key: string): void {
    const v = dict.get(key);
    if (v instanceof PdfRaw && /^\d+$/.test(v.text)) dict.set(key, raw(Number(v.text) + this.rules.structParentOffset));
  }

  /** A destination: an array is kept (its page reference already mapped); a name becomes the assembly's string. */
  private dest(value: PdfValue): PdfValue {
    let key: string | undefined;
    if (value instanceof PdfName) key = nameKey(value);
    else if (value instanceof PdfRaw && /^[(<]/.test(value.text)) key = stringKey(value);
    if (key === undefined) return value;
    return hexString(this.rules.dests.get(key) ?? key);
  }

  private id(value: PdfRaw): PdfValue {
    if (!/^[(<]/.test(value.text)) return value;
    const renamed = this.rules.ids.get(stringKey(value));
    return renamed === undefined ? value : hexString(renamed);
  }

  private damaged(what: string): AssembleInputError {
    return damaged(this.label, what);
  }
}

/** A string token's bytes as a byte string. */
export function stringKey(token: PdfRaw): string {
  return stringBytes(token.text).toString('latin1');
}
