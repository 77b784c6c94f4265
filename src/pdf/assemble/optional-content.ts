/**
 * The parts' optional content (layers) as the assembly's one /OCProperties. A reader shows every group of a
 * file whose catalog lists none, so a layer a part hides (a draft mark, a print-only watermark, a map's
 * extra detail) would show in the assembly. Each part's groups keep the state its default configuration
 * gives them; their order in a reader's layer list, radio-button groups, locks and usage follow, part after
 * part. A part's alternate configurations (/Configs) are left out: a reader opens on the default one.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import { dict, nameOf, type PdfDict, PdfRef, type PdfValue, textString } from '../profiles/pdf-objects.js';
import type { PartCopier } from './part-copier.js';

/** The object numbers an array of references names. */
function refNums(file: PdfFile, value: PdfValue | undefined): Set<number> {
  return new Set(file.array(value).flatMap((v) => (v instanceof PdfRef ? [v.num] : [])));
}

/** Collects each part's optional content as it is copied, then writes the assembly's /OCProperties. */
export class OptionalContent {
  private readonly groups: PdfValue[] = [];
  private readonly hidden: PdfValue[] = [];
  private readonly order: PdfValue[] = [];
  private readonly rbGroups: PdfValue[] = [];
  private readonly locked: PdfValue[] = [];
  private readonly usage: PdfValue[] = [];
  private hasOrder = false;
  private name: PdfValue | undefined;

  /** Adds the groups of one part, through the copier that copies its pages (call before it drains). */
  add(file: PdfFile, copier: PartCopier, catalog: PdfDict): void {
    const properties = file.dict(catalog.get('OCProperties'));
    if (!properties) return;
    const config = file.dict(properties.get('D')) ?? new Map<string, PdfValue>();
    const baseOff = nameOf(file.resolve(config.get('BaseState'))) === 'OFF';
    const on = refNums(file, config.get('ON'));
    const off = refNums(file, config.get('OFF'));
    const seen = new Set<number>();
    const partGroups: PdfValue[] = [];
    for (const group of file.array(properties.get('OCGs'))) {
      // A group is an indirect dictionary; poppler takes one listed without /Type /OCG for a group too.
      if (!(group instanceof PdfRef) || seen.has(group.num) || !file.dict(group)) continue;
      seen.add(group.num);
      const copied = copier.value(group);
      partGroups.push(copied);
      if (off.has(group.num) || (baseOff && !on.has(group.num))) this.hidden.push(copied);
    }
    if (partGroups.length === 0) return;
    this.groups.push(...partGroups);
    this.name ??= config.has('Name') ? copier.value(config.get('Name')) : undefined;
    if (config.has('Order')) {
      this.hasOrder = true;
      this.order.push(...file.array(config.get('Order')).map((v) => copier.value(v)));
    } else {
      this.order.push(...partGroups);
    }
    this.rbGroups.push(...file.array(config.get('RBGroups')).map((v) => copier.value(v)));
    this.locked.push(...file.array(config.get('Locked')).map((v) => copier.value(v)));
    this.usage.push(...file.array(config.get('AS')).map((v) => copier.value(v)));
  }

  /** The assembly's /OCProperties, or undefined when no part had a group. */
  properties(): PdfDict | undefined {
    if (this.groups.length === 0) return undefined;
    // PDF/A-2 asks every configuration for a name.
    const config: PdfDict = dict({ Name: this.name ?? textString('Default'), OFF: this.hidden });
    if (this.hasOrder) config.set('Order', this.order);
    if (this.rbGroups.length) config.set('RBGroups', this.rbGroups);
    if (this.locked.length) config.set('Locked', this.locked);
    if (this.usage.length) config.set('AS', this.usage);
    return dict({ OCGs: this.groups, D: config });
  }
}
