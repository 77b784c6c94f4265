/**
 * The report's words for what an existing PDF part carried that acts on its reader (taken out of the
 * assembly), for its attachments (kept) and for its owner's restrictions (not kept): one entry per kind and
 * part, with the first places it was met.
 */
import type { ActiveContentFinding } from '../pdf/index.js';
import type { ReportEntry } from '../render/index.js';

const WHAT: Record<Exclude<ActiveContentFinding['content'], 'permissions'>, [one: string, many: string]> = {
  javascript: ['a JavaScript action', 'JavaScript actions'],
  launch: ['a Launch action (it starts a program or opens a file)', 'Launch actions (they start a program or open a file)'],
  submit_form: [
    'a SubmitForm action (it sends form data to an address)',
    'SubmitForm actions (they send form data to an address)',
  ],
  import_data: ['an ImportData action', 'ImportData actions'],
  javascript_link: ['a javascript: link', 'javascript: links'],
  signature_field: ['a signature field of another signer', 'signature fields of other signers'],
  attachment: ['an attachment', 'attachments'],
};

/** One report entry per finding, naming its part (`parts[2]: …`). */
export function contentWarnings(findings: ReadonlyArray<ActiveContentFinding & { label: string }>): ReportEntry[] {
  return findings.map((f) => {
    if (f.content === 'permissions') {
      const message = `${f.label}: its owner’s restrictions (${f.places.join(', ')}) are not carried over: the assembly allows what its own \`protect\` allows`;
      return { kind: 'active_content', content: f.content, count: f.count, removed: true, part: f.label, message };
    }
    const removed = f.content !== 'attachment';
    const [one, many] = WHAT[f.content];
    const what = f.count === 1 ? one : `${f.count} ${many}`;
    const more = f.count > f.places.length ? ', …' : '';
    const where = f.places.length ? ` (${f.places.join('; ')}${more})` : '';
    const message = removed
      ? `${f.label}: ${what} taken out${where}: an assembly passes on nothing that acts on its reader`
      : `${f.label}: ${what} kept${where}`;
    return { kind: 'active_content', content: f.content, count: f.count, removed, part: f.label, message };
  });
}
