/**
 * The dashboard takes forms only from its own pages. Its tokens alone cannot tell: cookies ignore ports
 * and, without `__Host-`, a sibling subdomain can set them, so a page on another port or subdomain can
 * plant the log-in form's cookie (with `Path=/login` it even shadows the real one) and post a matching
 * token. Browsers say where a form comes from (`Sec-Fetch-Site`, `Origin`); a client that sends neither
 * (curl, a script) is not a victim's browser and is left to the tokens.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendPage, viewerOf } from './context.js';
import { errorPage } from './views/error-view.js';

/** Methods that never change state (GET never does here), so they may come from anywhere. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The serialized origin of an http(s) URL (a default port dropped), or undefined for anything else ("null"). */
function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a request may go on to its route: a safe method, or a browser saying it comes from the
 * dashboard's own origin (the request's scheme and host as Fastify sees them, which TRUST_PROXY lets a
 * proxy set, or `publicOrigin`), or a client saying nothing of where it comes from.
 */
export function fromOwnOrigin(request: FastifyRequest, publicOrigin: string): boolean {
  if (SAFE_METHODS.has(request.method)) return true;
  const site = header(request, 'sec-fetch-site');
  // same-site is the attack itself: another port or a sibling subdomain.
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = header(request, 'origin');
  if (origin === undefined) return true;
  const claimed = originOf(origin);
  const host = request.host;
  if (claimed !== undefined && (claimed === originOf(`${request.protocol}://${host}`) || claimed === publicOrigin)) return true;
  // From here on only a browser that itself vouches for the same origin gets through, for two gaps:
  // - `Origin: null`: a page under `Referrer-Policy: no-referrer` sends it even with its own forms (the
  //   dashboard's pages say `same-origin`, but a proxy in front may still impose no-referrer);
  // - the shipped nginx forwards `Host $host`, which drops the port it listens on (8000), so the origin
  //   rebuilt here lacks it: same scheme and host name only. A page on another port is same-site, refused above.
  if (site !== 'same-origin') return false;
  if (origin === 'null') return true;
  if (claimed === undefined || /:\d+$/.test(host)) return false;
  const url = new URL(claimed);
  return url.protocol === `${request.protocol}:` && url.hostname === host.toLowerCase();
}

/** The 403 page for a form sent from another site's page; nothing has been changed. */
function sendForeignFormFailure(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendPage(
    reply,
    403,
    errorPage({
      title: 'This form came from another site',
      message:
        'Nothing was changed. Pageworks accepts forms only from its own pages: if you meant to do this, open the dashboard yourself and use its form there.',
      viewer: request.signedIn && viewerOf(request.signedIn),
    }),
  );
}

/**
 * Refuses every state-changing request that a browser says comes from another origin, before its body is
 * read or its route runs. Register it after the session hook, so the refusal page keeps the signed-in chrome.
 */
export function refuseForeignForms(app: FastifyInstance, publicUrl: string): void {
  // config.ts has already checked DASHBOARD_PUBLIC_URL is an http(s) URL.
  const publicOrigin = new URL(publicUrl).origin;
  app.addHook('onRequest', async (request, reply) => {
    if (fromOwnOrigin(request, publicOrigin)) return;
    request.log.warn(
      { origin: header(request, 'origin') ?? null, secFetchSite: header(request, 'sec-fetch-site') ?? null },
      'form from another origin refused',
    );
    return sendForeignFormFailure(request, reply);
  });
}
