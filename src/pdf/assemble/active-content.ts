/**
 * What an existing PDF carries that acts on its reader, found before the part is copied so none of it reaches
 * the assembly (where Pageworks' signature would vouch for it): JavaScript (the document's name tree, open
 * and trigger actions of the catalog, pages, annotations and fields, an action's /Next chain), Launch,
 * SubmitForm and ImportData actions, `javascript:` links, and signature fields another signer made (their
 * widgets would still show "Digitally signed by …"). Attachments are kept, and listed so the report can name
 * them. The copier (part-copier.ts) leaves out what is found here: objects in `drops` become null, and the
 * objects in `touched` are copied the parsed way, through `clean`.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import {
  isDict,
  type PdfDict,
  PdfName,
  PdfRaw,
  PdfRef,
  type PdfValue,
  stringBytes,
  stringText,
} from '../profiles/pdf-objects.js';
import { nameKey, nameTreeEntries } from './trees.js';

/** What was found: each is removed, but for attachments, which are kept. */
export type ActiveContentKind =
  | 'javascript'
  | 'launch'
  | 'submit_form'
  | 'import_data'
  | 'javascript_link'
  | 'signature_field'
  | 'attachment'
  | 'permissions';

/** One kind of content a part carried, how often, and where (the first few places). */
export interface ActiveContentFinding {
  content: ActiveContentKind;
  count: number;
  /** The first places it was met, e.g. `page 1 (link)`, `the open action`. */
  places: string[];
}

/** Places named per kind; a file with thousands of links is summed up, not listed. */
const MAX_PLACES = 5;
const MAX_CHAIN = 64;
const MAX_FIELD_DEPTH = 32;
const MAX_OUTLINE_ITEMS = 100_000;

/** What an object's text holds when it may act (lower case): see `mayAct`. */
const MAY_ACT = /#|\\|java|\/js|launch|submit|import|\/sig|fileattachment|\/next|\/aa|\/parent|\/ft/;

const ACTIONS: Record<string, ActiveContentKind> = {
  JavaScript: 'javascript',
  Launch: 'launch',
  SubmitForm: 'submit_form',
  ImportData: 'import_data',
};

/** A name's text with `#xx` escapes decoded (`/Java#53cript` is /JavaScript to a reader). */
function plainName(value: PdfValue | undefined): string | undefined {
  return value instanceof PdfName ? nameKey(value) : undefined;
}

/** The active kind an action dictionary is, if any (its /Next chain aside). */
export function actionKind(file: PdfFile, action: PdfDict): ActiveContentKind | undefined {
  const s = plainName(action.get('S'));
  if (s !== undefined && s in ACTIONS) return ACTIONS[s];
  // A Rendition action can carry a script of its own.
  if (action.has('JS')) return 'javascript';
  if (s === 'URI') {
    const uri = file.resolve(action.get('URI'));
    if (uri instanceof PdfRaw && /^[(<]/.test(uri.text)) {
      // A reader skips leading spaces and control characters before the scheme, as browsers do.
      const text = stringBytes(uri.text)
        .toString('latin1')
        .replace(/^[\x00-\x20]+/, '');
      if (/^javascript:/i.test(text.replace(/[\t\n\r]/g, ''))) return 'javascript_link';
    }
  }
  return undefined;
}

/** What one part carries, and how its copy leaves it out. */
export class ActiveContent {
  /** Objects that are left out: references to them become null. */
  readonly drops = new Set<number>();
  /** Objects that hold something left out, so they are copied the parsed way (through `clean`). */
  readonly touched = new Set<number>();
  private readonly found = new Map<ActiveContentKind, ActiveContentFinding>();
  private readonly seen = new Set<number>();
  /** Annotations written inline in a page's /Annots that are left out (the parsed dictionaries themselves). */
  private readonly droppedInline = new Set<PdfDict>();

  constructor(private readonly file: PdfFile) {}

  /** What was found, removed or (attachments) kept, in a fixed order. */
  findings(): ActiveContentFinding[] {
    return [...this.found.values()];
  }

  /** Whether anything was removed. */
  get removesAnything(): boolean {
    return this.drops.size > 0 || this.touched.size > 0;
  }

  /** Whether `value` is (or points to) an action that is removed. */
  isActive(value: PdfValue | undefined): boolean {
    if (value instanceof PdfRef && this.drops.has(value.num)) return true;
    const action = this.file.dict(value);
    return action !== undefined && actionKind(this.file, action) !== undefined;
  }

  /**
   * A dictionary about to be copied, without what acts on the reader: removed actions (/A, /OpenAction, /PA,
   * /Next, trigger entries of /AA) and annotations that are left out.
   */
  clean(value: PdfDict): PdfDict {
    let out: PdfDict | undefined;
    const edit = (): PdfDict => {
      out ??= new Map(value);
      return out;
    };
    for (const key of ['A', 'OpenAction', 'PA']) if (this.isActive(value.get(key))) edit().delete(key);
    const next = value.get('Next');
    if (Array.isArray(next)) {
      const kept = next.filter((v) => !this.isActive(v));
      if (kept.length !== next.length) edit().set('Next', kept);
    } else if (this.isActive(next)) edit().delete('Next');
    const aa = this.file.dict(value.get('AA'));
    if (aa) {
      const kept: PdfDict = new Map([...aa].filter(([, v]) => !this.isActive(v)));
      if (kept.size === 0) edit().delete('AA');
      else if (kept.size !== aa.size || value.get('AA') instanceof PdfRef) edit().set('AA', kept);
    }
    const annots = this.file.resolve(value.get('Annots'));
    if (Array.isArray(annots)) {
      const kept = annots.filter((v) => !(v instanceof PdfRef ? this.drops.has(v.num) : isDict(v) && this.droppedInline.has(v)));
      if (kept.length !== annots.length) edit().set('Annots', kept);
    }
    return out ?? value;
  }

  /** Looks through the part: catalog, pages and their annotations, fields, outline, attachments. */
  scan(): this {
    const file = this.file;
    const catalog = file.catalog();
    const root = catalog.value;
    const names = file.dict(root.get('Names'));
    for (const [key] of nameTreeEntries(file, names?.get('JavaScript'))) this.note('javascript', `document script "${key}"`);
    this.action(root.get('OpenAction'), catalog.num, 'the open action');
    this.triggers(root.get('AA'), catalog.num, 'the document');
    if (file.dict(root.get('Perms'))) this.note('signature_field', 'the document’s signature permissions (DocMDP)');
    const pages = file.pages();
    pages.forEach((num, i) => {
      const page = file.dict(file.refTo(num));
      if (!page) return;
      this.triggers(page.get('AA'), num, `page ${i + 1}`);
      const annotsValue = page.get('Annots');
      const annots = file.resolve(annotsValue);
      if (!Array.isArray(annots)) return;
      // The page holds the list of its annotations: it is rewritten when one of them is left out.
      const holder = annotsValue instanceof PdfRef ? annotsValue.num : num;
      for (const ref of annots) this.annotation(ref, ref instanceof PdfRef ? ref.num : holder, holder, `page ${i + 1}`);
    });
    this.outline(root.get('Outlines'));
    for (const [key] of nameTreeEntries(file, names?.get('EmbeddedFiles'))) this.note('attachment', `"${key}"`);
    return this;
  }

  private annotation(ref: PdfValue, holder: number, listHolder: number, where: string): void {
    if (ref instanceof PdfRef && !this.mayAct(ref.num)) return;
    const annot = this.file.dict(ref);
    if (!annot) return;
    const subtype = plainName(annot.get('Subtype'));
    if (subtype === 'Widget') {
      const field = this.signatureField(annot);
      if (field !== undefined) {
        this.note('signature_field', `${where} (field "${field}")`);
        if (ref instanceof PdfRef) this.drops.add(ref.num);
        else this.droppedInline.add(annot);
        this.touched.add(listHolder);
        return;
      }
    }
    if (subtype === 'FileAttachment') {
      const spec = this.file.dict(annot.get('FS'));
      const fileName = this.file.resolve(spec?.get('UF') ?? spec?.get('F'));
      const shown = fileName instanceof PdfRaw && /^[(<]/.test(fileName.text) ? ` "${stringText(fileName.text)}"` : '';
      this.note('attachment', `${where} (a file attachment${shown})`);
    }
    const what = subtype === 'Link' ? `${where} (link)` : `${where} (${subtype ?? 'annotation'})`;
    this.action(annot.get('A'), holder, what);
    this.triggers(annot.get('AA'), holder, what);
    // A widget's field (and the fields above it) come along through /Parent: their triggers too.
    let parent = annot.get('Parent');
    for (let depth = 0; parent instanceof PdfRef && depth < MAX_FIELD_DEPTH; depth++) {
      const field = this.file.dict(parent);
      if (!field) break;
      this.triggers(field.get('AA'), parent.num, `${where} (form field)`);
      parent = field.get('Parent');
    }
  }

  /**
   * Whether object `num`'s text could hold or reach anything this module looks for; most annotations (a
   * printed document's links) cannot, and are not parsed. Nothing active can be spelled without one of
   * these: names escape with `#`, strings with `\\` or hex, and an action elsewhere is reached through /A,
   * /AA, /Next or /Parent by reference.
   */
  private mayAct(num: number): boolean {
    const at = this.file.offset(num);
    if (at === undefined) return true;
    const end = this.file.text.indexOf('endobj', at);
    const text = this.file.text.slice(at, end < 0 ? undefined : end).toLowerCase();
    return MAY_ACT.test(text) || /\/a\s+\d+\s+\d+\s+r/.test(text) || /<(?!<)/.test(text.replace(/<</g, ''));
  }

  /** The name of the signature field a widget belongs to, or undefined when it is not one. */
  private signatureField(widget: PdfDict): string | undefined {
    let node: PdfDict | undefined = widget;
    let title: string | undefined;
    for (let depth = 0; node && depth < MAX_FIELD_DEPTH; depth++) {
      const t = this.file.resolve(node.get('T'));
      if (title === undefined && t instanceof PdfRaw && /^[(<]/.test(t.text)) title = stringText(t.text);
      const ft = plainName(node.get('FT'));
      if (ft !== undefined) return ft === 'Sig' ? (title ?? 'unnamed') : undefined;
      node = this.file.dict(node.get('Parent'));
    }
    return undefined;
  }

  private outline(value: PdfValue | undefined): void {
    const root = this.file.dict(value);
    const stack: PdfValue[] = root?.get('First') ? [root.get('First') as PdfValue] : [];
    const visited = new Set<number>();
    while (stack.length && visited.size < MAX_OUTLINE_ITEMS) {
      const ref = stack.pop();
      if (!(ref instanceof PdfRef) || visited.has(ref.num)) continue;
      visited.add(ref.num);
      const item = this.file.dict(ref);
      if (!item) continue;
      this.action(item.get('A'), ref.num, 'the outline');
      for (const key of ['Next', 'First']) if (item.get(key)) stack.push(item.get(key) as PdfValue);
    }
  }

  /** An additional-actions dictionary: each trigger's action chain. */
  private triggers(value: PdfValue | undefined, holder: number, where: string): void {
    const aa = this.file.dict(value);
    if (!aa) return;
    const own = value instanceof PdfRef ? value.num : holder;
    for (const [trigger, action] of aa) {
      if (this.action(action, own, `${where}, on /${trigger}`)) this.touched.add(holder);
    }
  }

  /**
   * An action and its /Next chain: what is active is noted and left out. `holder` is the object that holds
   * the action (written inline, or by reference); true when anything in the chain was removed.
   */
  private action(value: PdfValue | undefined, holder: number, where: string, depth = 0): boolean {
    if (value === undefined || depth > MAX_CHAIN) return false;
    if (Array.isArray(value)) {
      let any = false;
      for (const v of value) any = this.action(v, holder, where, depth + 1) || any;
      return any;
    }
    if (value instanceof PdfRef) {
      if (this.drops.has(value.num)) {
        this.touched.add(holder);
        return true;
      }
      if (this.seen.has(value.num)) return false;
      this.seen.add(value.num);
    }
    const action = this.file.dict(value);
    if (!action) return false;
    const kind = actionKind(this.file, action);
    if (kind) {
      this.note(kind, where);
      if (value instanceof PdfRef) this.drops.add(value.num);
      this.touched.add(holder);
      // What follows it in the chain goes with it; anything active there is named too.
      this.action(action.get('Next'), holder, where, depth + 1);
      return true;
    }
    const own = value instanceof PdfRef ? value.num : holder;
    const removed = this.action(action.get('Next'), own, where, depth + 1);
    if (removed) this.touched.add(holder);
    return removed;
  }

  private note(content: ActiveContentKind, place: string): void {
    const finding = this.found.get(content) ?? { content, count: 0, places: [] };
    finding.count++;
    if (finding.places.length < MAX_PLACES && !finding.places.includes(place)) finding.places.push(place);
    this.found.set(content, finding);
  }
}

/** Finds what a part carries that acts on its reader (scan), ready for the copier. */
export function findActiveContent(file: PdfFile): ActiveContent {
  return new ActiveContent(file).scan();
}
