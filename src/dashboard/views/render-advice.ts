/**
 * What one render report entry means for the person who sent the document, in plain words: a short
 * title, the facts worth checking (the URL, the refused host, the exception text) and what to do.
 * Pure: an entry in, text out; the Renders page lays it out.
 */
import type { ReportEntry } from '../../render/index.js';

/** One warning as the render's page explains it. */
export interface WarningAdvice {
  title: string;
  /** Labelled facts, in the order shown ("Address", "Refused host", "Exception", …). */
  facts: Array<[label: string, value: string]>;
  /** What to do about it. */
  advice: string;
  /** Where to read more, shown after the advice. */
  link?: { href: string; text: string };
}

/** The dashboard's standards section (its Docs page): the profiles, the claim rule, how to verify. */
export const STANDARDS_DOCS_HREF = '/docs#docs-standards';

/** The host of a URL as the egress policy met it (an address or a name), or undefined for `data:` and the like. */
function hostOf(url: string): string | undefined {
  try {
    const host = new URL(url).hostname;
    return host === '' ? undefined : host;
  } catch {
    return undefined;
  }
}

const CONTENT: Record<Extract<ReportEntry, { kind: 'active_content' }>['content'], string> = {
  javascript: 'JavaScript',
  launch: 'an action that starts a program',
  submit_form: 'a form that sends its data away',
  import_data: 'an action that imports form data',
  javascript_link: 'a javascript: link',
  signature_field: 'another signer’s signature field',
  attachment: 'an attachment',
  permissions: 'its owner’s restrictions',
};

/** How a resource failed below HTTP (report.ts NetworkFailure). */
type NetworkFailure = NonNullable<Extract<ReportEntry, { kind: 'resource_failed' }>['error']>;

/** Every failure has its own title and advice: a new kind of failure does not compile without them. */
const NETWORK: Record<NetworkFailure, [title: string, advice: string]> = {
  refused: [
    'The server refused the connection',
    'Nothing answered at that address and port. Check that the server is running and the port in the URL is right.',
  ],
  reset: [
    'The connection was cut off',
    'The connection closed before the whole file arrived. Try again; if it persists, look at that server.',
  ],
  timeout: [
    'The server did not answer in time',
    'The file took too long to arrive. Serve it from a faster place, or embed it in the document.',
  ],
  cors: [
    'The server did not let the document use it',
    'A font or a fetch() from another origin needs the header Access-Control-Allow-Origin from its server. Add it there, or serve the file from the document’s own origin.',
  ],
  tls: [
    'The secure connection failed',
    'Its HTTPS certificate is not valid for that host (expired, self-signed or for another name). Fix the certificate or use another address.',
  ],
  csp: [
    'The document’s own Content-Security-Policy stopped it',
    'A Content-Security-Policy in the document (a <meta http-equiv> tag) does not allow this address. Add its origin to the policy, or drop the policy.',
  ],
  credentials: [
    'The address holds a user name or password',
    'Browsers load no image, style sheet, script or font from an address with user:password@ in it. Serve the file without them, or inline it as a data: URL.',
  ],
  orb: [
    'The server answered with a web page, not the file',
    'Where an image, style sheet or script was expected, the server sent HTML, JSON or XML, which browsers do not load. Open the URL: it may lead to an error or sign-in page.',
  ],
  corp: [
    'The server lets only its own site use the file',
    'Its answer has Cross-Origin-Resource-Policy: same-origin or same-site. Serve the file without that header, or from another place.',
  ],
  framing: [
    'The server does not let the page be shown in a frame',
    'Its answer has X-Frame-Options or a Content-Security-Policy frame-ancestors that leaves other pages out. Allow framing on that server, or put the content in the document itself.',
  ],
  decoding: [
    'The file could not be decompressed',
    'Its answer says it is compressed (Content-Encoding: gzip, br) but its bytes are not. Fix that server’s compression settings.',
  ],
  redirects: [
    'The address redirects in a loop',
    'It redirected more than 20 times. Open the URL to see where it leads, and give the document the final address.',
  ],
  relative: [
    'The address is relative to nothing',
    'A document sent as HTML has no address of its own, so a relative address such as /img/logo.png or css/site.css leads nowhere and nothing is asked for. Write the full https:// address, add <base href="https://your.site/"> to the head, or inline the file as a data: URL.',
  ],
  undecodable: [
    'The file is not an image the browser can read',
    'The image arrived, but its bytes are not a PNG, JPEG, GIF, WebP, AVIF or SVG it can decode, so a broken-image icon printed in its place. Open the URL and check what it serves.',
  ],
};

function blocked(entry: Extract<ReportEntry, { kind: 'resource_blocked' }>): WarningAdvice {
  const host = hostOf(entry.url);
  const facts: WarningAdvice['facts'] = [['URL', entry.url]];
  switch (entry.reason) {
    case 'private_address':
      // The report's words name loopback (the render server's own machine) and the EGRESS_ALLOW value.
      if (entry.message.includes(' is loopback')) {
        if (host) facts.push(['Refused host', `${host} (loopback: the render server's own machine)`]);
        const allow = /EGRESS_ALLOW=(\S+)/.exec(entry.message)?.[1] ?? '127.0.0.1/32';
        return {
          title: 'Not loaded: the address is the render server’s own machine (loopback)',
          facts,
          advice:
            'Renders fetch from public addresses only, so a document cannot reach services on the machine that renders it. ' +
            `For local development, start the server with EGRESS_ALLOW=${allow} (pageworks render reads EGRESS_ALLOW from its own environment). ` +
            'In production, serve the file from a public address or embed it as a data: URL.',
        };
      }
      if (host) {
        // A literal address is refused as it is; a name, for the address it resolves to.
        const literal = /^[\d.]+$|^\[/.test(host);
        facts.push(['Refused host', `${host} (${literal ? 'a' : 'resolves to a'} private, loopback or reserved address)`]);
      }
      return {
        title: 'Not loaded: the address is on a private network',
        facts,
        advice:
          'Renders may only fetch from public addresses, so that a document cannot reach into the network the service runs in. ' +
          'Serve the file from a public address or embed it in the document (a data: URL). ' +
          'If the private address is intended, EGRESS_ALLOW lets an operator allow a private address or host.',
      };
    case 'unresolvable':
      if (host) facts.push(['Host that does not resolve', host]);
      return {
        title: 'Not loaded: the host name does not resolve',
        facts,
        advice:
          'DNS has no address for this host. Check its spelling, and that the name is published in public DNS (an intranet name is not reachable from the render service).',
      };
    case 'scheme':
      return {
        title: 'Not loaded: this kind of address is not fetched',
        facts,
        advice:
          'Only http:, https:, data: and blob: addresses are loaded (never file:). Put the file on a web server, or embed it as a data: URL.',
      };
    case 'too_large':
      return {
        title: 'Not loaded: the file is too large',
        facts,
        advice:
          'The file is larger than a render may fetch. Make it smaller (compress the image, subset the font) or link a smaller version.',
      };
    default:
      return { title: 'Not loaded: the request was refused', facts, advice: entry.message };
  }
}

/**
 * The plain-words explanation of one report entry; `delivered`: whether the render delivered its PDF
 * (a strict render refused for its warnings did not).
 */
export function adviceFor(entry: ReportEntry, delivered = true): WarningAdvice {
  switch (entry.kind) {
    case 'resource_blocked':
      return blocked(entry);
    case 'resource_failed': {
      const facts: WarningAdvice['facts'] = [['URL', entry.url]];
      if (entry.status !== undefined) {
        // The title names the status: it is not repeated as a fact.
        return {
          title: `Not loaded: the server answered HTTP ${entry.status}`,
          facts,
          advice:
            entry.status === 404 || entry.status === 410
              ? 'The file is not at this address. Check the URL for typos, and that the file is published there.'
              : entry.status === 401 || entry.status === 403
                ? 'The server wants a permission the render does not have (renders send no cookies or passwords). Make the file public, or embed it.'
                : 'The server failed to deliver the file. Check that server, then render again.',
        };
      }
      const [title, advice] = entry.error ? NETWORK[entry.error] : ['The connection failed', entry.message];
      const host = hostOf(entry.url);
      if (host) facts.push(['Host', host]);
      return { title: `Not loaded: ${title.charAt(0).toLowerCase()}${title.slice(1)}`, facts, advice };
    }
    case 'font_failed': {
      const facts: WarningAdvice['facts'] = [['Font', entry.family]];
      if (entry.url) facts.push(['URL', entry.url]);
      // The report's message names what happened to the font's file, in parentheses, when it is known.
      const cause = /could not be loaded[^(]* \((.+)\); its text/.exec(entry.message)?.[1];
      if (cause) facts.push(['Why', cause]);
      return {
        title: `Text printed in a fallback font: "${entry.family}" did not load`,
        facts,
        advice: 'Check the font’s URL in @font-face and its format (woff2, woff or ttf), or embed the font as a data: URL.',
      };
    }
    case 'script_error':
      return {
        title: 'A script in the document failed',
        facts: [['Exception', entry.text]],
        advice:
          'The page printed as it was when the script stopped, so content the script was to add may be missing. Open the document in a browser and look at its console.',
      };
    case 'not_ready':
      return {
        title: 'window.pageworksReady was rejected',
        facts: [['Reason', entry.text]],
        advice:
          'Printing went on without waiting further. Resolve the promise once the document is complete, and reject it only when it cannot be.',
      };
    case 'printed_while_pending':
      return {
        title: `Printed with ${entry.count} ${entry.count === 1 ? 'request' : 'requests'} still loading`,
        facts: entry.urls.map((url) => ['Still loading', url] as [string, string]),
        advice:
          'RENDER_IDLE_MAX_MS ran out while these were loading, so what they bring may be missing. Serve them faster, or set window.pageworksReady to a promise that resolves when the document is complete.',
      };
    case 'frames_missed':
      return {
        title: 'Printed without a frame the document waited for',
        facts: [['Callbacks waiting', String(entry.count)]],
        advice:
          'Another document held the browser’s animation frames, so what this one draws in requestAnimationFrame may be missing. Set window.pageworksReady to a promise that resolves once the drawing is done, and printing waits for it.',
      };
    case 'unresolved_reference':
      return {
        title: 'A cross-reference points at nothing',
        facts: [['Target', entry.target]],
        advice: 'target-counter() names an element that is not in the document. Check that an element has this id.',
      };
    case 'conformance':
      return {
        title: `The PDF does not claim ${entry.profile}`,
        facts: [
          ['Profile', entry.profile],
          ['Clause', entry.clause],
          ['Element', entry.element],
        ],
        // The entry's own words say what is missing and how to mend it (add lang, add alt text, another font).
        // A refused render (strict handling) delivered no PDF: it must not read as if one was made.
        advice: `${entry.message}${/[.!?]$/.test(entry.message) ? '' : '.'} ${
          delivered ? 'The PDF was made without that claim.' : 'No PDF was delivered, so nothing was claimed.'
        }`,
        link: { href: STANDARDS_DOCS_HREF, text: `What ${entry.profile} needs, and how to check a PDF` },
      };
    case 'active_content':
      if (entry.content === 'permissions')
        return {
          title: `Not carried over from ${entry.part ?? 'a part'}: ${CONTENT[entry.content]}`,
          facts: [],
          advice: `${entry.message}. The part opened without a password, and its owner allowed assembling it; to keep it from being printed or copied, protect the assembly with the permissions you want.`,
          link: { href: '/docs#docs-assembling', text: 'Encrypted parts, and protecting an assembly' },
        };
      return entry.removed
        ? {
            title: `Taken out of ${entry.part ?? 'a part'}: ${CONTENT[entry.content]}`,
            facts: [['Found', String(entry.count)]],
            advice: `${entry.message}. The assembly keeps the part's pages; nothing in it acts on its reader, so a signature never vouches for such content.`,
            link: { href: '/docs#docs-assembling', text: 'What an assembly takes out of an existing PDF' },
          }
        : {
            title: `Kept in ${entry.part ?? 'a part'}: ${entry.count === 1 ? 'an attachment' : `${entry.count} attachments`}`,
            facts: [],
            advice: `${entry.message}. Attached files travel with the assembly; check them before you send it on.`,
          };
    case 'truncated':
      return {
        title: `${entry.dropped} more ${entry.dropped === 1 ? 'warning was' : 'warnings were'} not kept`,
        facts: [],
        advice: 'A render keeps its first 100 warnings. Fix these and render again to see the rest.',
      };
    default: {
      // An entry of a kind this page does not know yet (a newer renderer): its own message says what happened.
      const unknown = entry as { kind: string; message: string };
      return { title: unknown.kind, facts: [], advice: unknown.message };
    }
  }
}
