/**
 * The content of a raw-text element (script, style, xmp, iframe, noembed, noframes, textarea) as the
 * document scanner reads it window by window: the search for its end tag, and, when a window ends inside
 * the content, which element is open and where the search resumes. The start tag is consumed by then, so
 * a long script is neither rescanned nor copied from its start when the next chunk comes.
 */
import { findEndTag, NEED_MORE } from './html-scan.js';
import { findScriptEnd, type ScriptCarry, scriptStart } from './script-end.js';

/** The raw-text element left open at the end of a window, if any. */
export class RawTextSearch {
  /** The open element's name; '' when none is open. */
  name = '';
  /** Where its content began in the window that opened it. */
  private from = 0;
  /** A script's tokenizer state where its search stopped (escaped and double-escaped script data). */
  private readonly carry: ScriptCarry = scriptStart();

  /** Whether a window ended inside an element's content. */
  get open(): boolean {
    return this.name !== '';
  }

  /** Searches `name`'s content from `from`: the index of its end tag, or NEED_MORE, which leaves it open. */
  start(name: string, b: Buffer, from: number, len: number, final: boolean): number {
    if (name === 'script') Object.assign(this.carry, scriptStart());
    const close = this.find(name, b, from, len, final);
    if (close === NEED_MORE) {
      this.name = name;
      this.from = from;
    }
    return close;
  }

  /** Goes on with the open element in a new window from `from`: its end tag's index (closing it), or NEED_MORE. */
  resume(b: Buffer, from: number, len: number, final: boolean): number {
    const close = this.find(this.name, b, from, len, final);
    if (close !== NEED_MORE) this.name = '';
    return close;
  }

  /** Where the next window must begin for the search to go on; `from` is where it began in this one. */
  resumeAt(len: number, from = this.from): number {
    // findEndTag has decided every "<" before the last name.length + 2 bytes.
    return this.name === 'script' ? this.carry.at : Math.max(from, len - this.name.length - 2);
  }

  /** The end of `name`'s content from `from`, NEED_MORE, or `len` at the end of the input. */
  private find(name: string, b: Buffer, from: number, len: number, final: boolean): number {
    return name === 'script' ? findScriptEnd(b, from, len, final, this.carry) : findEndTag(b, from, len, name, final);
  }
}
