/**
 * SVG and MathML content as the HTML tree builder keeps it ("parsing in foreign content"): the open foreign
 * elements with their HTML integration points, the start tags that break back out into HTML, and how end
 * tags close foreign elements. The scanner needs it only to know which tags are HTML.
 */
import { eqLower } from './html-scan.js';
import type { TagAttrs } from './tag-attrs.js';

interface ForeignFrame {
  name: string;
  /** HTML integration point: its children are parsed as HTML. */
  ip: boolean;
}

/** Start tags that break out of SVG/MathML content back into HTML. */
const BREAKOUT = new Set(
  (
    'b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing menu meta ' +
    'nobr ol p pre ruby s small span strong strike sub sup table tt u ul var'
  ).split(' '),
);

/** The stack of open SVG/MathML elements (empty outside them). */
export class ForeignContent {
  private readonly stack: ForeignFrame[] = [];

  /** How many foreign elements are open. */
  get depth(): number {
    return this.stack.length;
  }

  /** Whether tags are foreign here: inside SVG/MathML and not at an HTML integration point. */
  inside(): boolean {
    const top = this.stack[this.stack.length - 1];
    return top !== undefined && !top.ip;
  }

  /** An `<svg>` or `<math>` start tag in HTML content. */
  open(name: 'svg' | 'math', selfClosing: boolean): void {
    if (!selfClosing) this.stack.push({ name, ip: false });
  }

  /**
   * A start tag `name` (lower case) while `inside()`. Returns true when it is a foreign element, false when
   * it breaks out: the foreign elements up to the integration point are closed and it is an HTML tag.
   */
  startTag(name: string, b: Buffer, attrs: TagAttrs): boolean {
    const breakout =
      BREAKOUT.has(name) ||
      (name === 'font' && (attrs.find(b, 'color') >= 0 || attrs.find(b, 'face') >= 0 || attrs.find(b, 'size') >= 0));
    if (breakout) {
      this.popToIntegrationPoint();
      return false;
    }
    if (!attrs.selfClosing) this.stack.push({ name, ip: this.isIntegrationPoint(name, b, attrs) });
    return true;
  }

  /** An end tag `name` (lower case) while foreign elements are open. */
  endTag(name: string): void {
    if (this.inside() && (name === 'p' || name === 'br')) {
      this.popToIntegrationPoint();
      return;
    }
    for (let i = this.stack.length - 1; i >= 0; i--) {
      if (this.stack[i]?.name === name) {
        this.stack.length = i;
        return;
      }
    }
  }

  private popToIntegrationPoint(): void {
    for (let top = this.stack[this.stack.length - 1]; top !== undefined && !top.ip; top = this.stack[this.stack.length - 1]) {
      this.stack.pop();
    }
  }

  private isIntegrationPoint(name: string, b: Buffer, attrs: TagAttrs): boolean {
    const ns = this.stack[0]?.name ?? '';
    if (ns === 'svg') return name === 'foreignobject' || name === 'desc' || name === 'title';
    if (name === 'mi' || name === 'mo' || name === 'mn' || name === 'ms' || name === 'mtext') return true;
    if (name !== 'annotation-xml') return false;
    const enc = attrs.find(b, 'encoding');
    if (enc < 0) return false;
    const p = attrs.pos;
    return (
      eqLower(b, p[enc * 4 + 2], p[enc * 4 + 3], 'text/html') ||
      eqLower(b, p[enc * 4 + 2], p[enc * 4 + 3], 'application/xhtml+xml')
    );
  }
}
