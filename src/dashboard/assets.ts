import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { CLIENT_SCRIPT } from './assets/client-script.js';
import { STYLES } from './assets/styles.js';

/** The brand mark: a page with a folded corner. Used inline in the header and as the favicon. */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="26" height="26" viewBox="0 0 32 32" aria-hidden="true">' +
  '<rect width="32" height="32" rx="8" fill="#2347c9"/>' +
  '<path d="M10 7h9l5 5v13a1 1 0 0 1-1 1H10a1 1 0 0 1-1-1V8a1 1 0 0 1 1-1z" fill="#fff"/>' +
  '<path d="M19 7v4a1 1 0 0 0 1 1h4z" fill="#b9c6f3"/>' +
  '<path d="M12 16h8M12 19.5h8M12 23h5" stroke="#2347c9" stroke-width="1.6" stroke-linecap="round"/></svg>';

interface Asset {
  url: string;
  type: string;
  body: string;
}

function asset(name: string, ext: string, type: string, body: string): Asset {
  // The content hash in the name lets browsers cache forever and still see every change.
  const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { url: `/assets/${name}.${hash}.${ext}`, type, body };
}

const ASSETS = {
  css: asset('dashboard', 'css', 'text/css; charset=utf-8', STYLES),
  js: asset('dashboard', 'js', 'text/javascript; charset=utf-8', CLIENT_SCRIPT),
  icon: asset('favicon', 'svg', 'image/svg+xml', LOGO_SVG),
};

/** Public URLs of the stylesheet, script and favicon. */
export const ASSET_URLS = { css: ASSETS.css.url, js: ASSETS.js.url, icon: ASSETS.icon.url } as const;

/** Serves the static assets with long-lived caching (their names change with their content). */
export function registerAssets(app: FastifyInstance): void {
  for (const { url, type, body } of Object.values(ASSETS)) {
    app.get(url, async (_request, reply) => {
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      return reply.type(type).send(body);
    });
  }
}
