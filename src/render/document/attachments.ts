/**
 * Fetches a document's attachments (`<link rel="attachment">`). An http(s) one is loaded by the page's
 * own browser context, so it goes through the render's egress proxy like any subresource: the same
 * policy, the same per-render caps, no CORS in the way (the document is an opaque-origin page). A
 * `data:` one is decoded here, with no network at all. What cannot be had becomes a report entry.
 */
import type { CDPSession } from 'puppeteer-core';
import type { RenderEgress } from '../../net/render-egress.js';
import type { ReportEntry } from '../../report/report.js';
import { withTimeout } from '../../with-timeout.js';
import { blockedEntry, failedEntry } from '../report/report-words.js';
import { MAX_ATTACHMENT_BYTES } from './declarations.js';

/** An attachment's bytes and media type as its server (or its data: URL) gave them. */
export interface FetchedFile {
  bytes: Uint8Array;
  type: string;
}

/** How the proxy knows a request: by URL for plain http, by `host:port` for a tunnel. */
function proxyTargets(url: URL): string[] {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return url.protocol === 'http:' ? [url.href, `${url.hostname}:${port}`] : [`${url.hostname}:${port}`];
}

/** Why the attachment did not come, as the report says it: the policy's refusal when there was one. */
function failure(url: URL, egress: RenderEgress, status: number | undefined, netError: string): ReportEntry {
  const targets = proxyTargets(url);
  const refusal = egress.refusals.find((r) => targets.includes(r.target))?.reason;
  if (refusal === 'private_address' || refusal === 'unresolvable' || refusal === 'scheme' || refusal === 'too_large') {
    return blockedEntry(url.href, refusal);
  }
  if (refusal) return failedEntry(url.href, { error: refusal });
  if (status !== undefined && status >= 400) return failedEntry(url.href, { status });
  if (/TIMED_OUT/.test(netError)) return failedEntry(url.href, { error: 'timeout' });
  if (/CERT|SSL/.test(netError)) return failedEntry(url.href, { error: 'tls' });
  if (/REFUSED|TUNNEL|UNREACHABLE/.test(netError)) return failedEntry(url.href, { error: 'refused' });
  return failedEntry(url.href, { error: 'reset' });
}

/** Reads a protocol stream to its end, or stops (and answers null) past `max` bytes. */
async function readBounded(session: CDPSession, handle: string, max: number): Promise<Uint8Array | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      const { data, base64Encoded, eof } = await session.send('IO.read', { handle, size: 1 << 20 });
      const chunk = Buffer.from(data, base64Encoded ? 'base64' : 'utf8');
      size += chunk.length;
      if (size > max) return null;
      chunks.push(chunk);
      if (eof) return new Uint8Array(Buffer.concat(chunks));
    }
  } finally {
    await session.send('IO.close', { handle }).catch(() => undefined);
  }
}

/** Where an attachment is fetched from, and with what it may be fetched. */
export interface AttachmentSource {
  session: CDPSession;
  /** The main frame, whose browser context (and so egress proxy) loads it. */
  frameId: string;
  egress: RenderEgress;
  /** How long the fetch may take (ms). */
  timeoutMs: number;
}

/** Fetches one attachment; a report entry when it cannot be had. */
export async function fetchAttachment(address: string, from: AttachmentSource): Promise<FetchedFile | ReportEntry> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return blockedEntry(address, 'scheme');
  }
  if (url.protocol === 'data:') {
    // Node decodes a data: URL itself (base64 or percent-encoded); fetch never reaches a network for it.
    const answer = await fetch(url);
    const bytes = new Uint8Array(await answer.arrayBuffer());
    return { bytes, type: answer.headers.get('content-type') ?? '' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return blockedEntry(address, 'scheme');
  const { session, frameId, egress, timeoutMs } = from;
  let resource: { success: boolean; httpStatusCode?: number; netErrorName?: string; stream?: string; headers?: object };
  try {
    ({ resource } = await withTimeout(
      session.send('Network.loadNetworkResource', {
        frameId,
        url: url.href,
        options: { disableCache: true, includeCredentials: false },
      }),
      timeoutMs,
    ));
  } catch {
    return failedEntry(url.href, { error: 'timeout' });
  }
  const status = resource.httpStatusCode;
  if (!resource.success || !resource.stream || (status !== undefined && status >= 400)) {
    if (resource.stream) await session.send('IO.close', { handle: resource.stream }).catch(() => undefined);
    return failure(url, egress, status, resource.netErrorName ?? '');
  }
  const bytes = await withTimeout(readBounded(session, resource.stream, MAX_ATTACHMENT_BYTES), timeoutMs).catch(() => undefined);
  if (bytes === undefined) return failedEntry(url.href, { error: 'timeout' });
  if (bytes === null) return blockedEntry(url.href, 'too_large');
  const headers = Object.entries(resource.headers ?? {});
  const type = headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  return { bytes, type: typeof type === 'string' ? type : '' };
}
