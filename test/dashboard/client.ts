import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** What Chromium sends with a form posted from a page of the dashboard at http://localhost. */
const SAME_ORIGIN_FORM = { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' } as const;

/** A tiny cookie-keeping browser stand-in over `app.inject`, for the dashboard's inject tests. */
export class FormClient {
  readonly cookies = new Map<string, string>();
  /** The last HTML page received. */
  body = '';

  constructor(
    private readonly app: FastifyInstance,
    private readonly ip = '127.0.0.1',
    /** Sent with every request (an `X-Forwarded-For` a proxy would add). */
    private readonly headers: Record<string, string> = {},
  ) {}

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies) {
      if (c.maxAge === 0 || (c.expires && c.expires.getTime() < Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    if (String(res.headers['content-type'] ?? '').startsWith('text/html')) this.body = res.body;
    return res;
  }

  /** GET a page with this client's cookies. */
  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({
        method: 'GET',
        url,
        cookies: Object.fromEntries(this.cookies),
        remoteAddress: this.ip,
        headers: this.headers,
      }),
    );
  }

  /**
   * POST a urlencoded form with this client's cookies and the headers Chromium adds to a form of the
   * dashboard's own page (inject's host is `localhost:80`); `headers` given to the constructor override them.
   */
  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        cookies: Object.fromEntries(this.cookies),
        remoteAddress: this.ip,
        headers: {
          ...SAME_ORIGIN_FORM,
          ...this.headers,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: new URLSearchParams(form).toString(),
      }),
    );
  }

  /** The CSRF token of the last page received (first form). */
  csrf(): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(this.body);
    if (!match) throw new Error('no CSRF field on the last page');
    return match[1]!;
  }

  /** Submits the "Create key" form and follows its redirect to the one view that shows the new key. */
  async createKey(form: Record<string, string>): Promise<LightMyRequestResponse> {
    const res = await this.submit('/keys', '/keys', form);
    if (res.statusCode !== 303) return res;
    return this.get(String(res.headers.location).split('#')[0]!);
  }

  /** Loads a page, then submits a form on it with its CSRF token. */
  async submit(pageUrl: string, action: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    await this.get(pageUrl);
    return this.post(action, { _csrf: this.csrf(), ...form });
  }
}

/** A strong-enough password for tests. */
export const PASSWORD = 'correct horse battery staple';

let nextIp = 0;

/** A fresh loopback address per call, so sign-ups stay under the per-IP sign-up limit. */
export function freshIp(): string {
  nextIp += 1;
  return `127.1.${(nextIp >> 8) & 255}.${nextIp & 255}`;
}

/** Signs up a new account through the form (from its own client IP); the client is then signed in. */
export async function signUp(app: FastifyInstance, email: string, ip = freshIp()): Promise<FormClient> {
  const client = new FormClient(app, ip);
  const res = await client.submit('/signup', '/signup', { email, password: PASSWORD, password_confirm: PASSWORD });
  if (res.statusCode !== 303) throw new Error(`sign-up failed: ${res.statusCode} ${res.body.slice(0, 200)}`);
  return client;
}

/** Logs in through the form. */
export async function logIn(
  app: FastifyInstance,
  email: string,
  password = PASSWORD,
  ip?: string,
): Promise<{ client: FormClient; res: LightMyRequestResponse }> {
  const client = new FormClient(app, ip);
  const res = await client.submit('/login', '/login', { email, password });
  return { client, res };
}

/** The id of the active key row showing the display prefix of `key`. */
export function keyIdOf(body: string, key: string): string {
  const prefix = key.slice(0, 'pwr_live_'.length + 4);
  for (const chunk of body.split('<tr data-key-id="').slice(1)) {
    const row = chunk.slice(0, chunk.indexOf('</tr>'));
    if (row.includes(`data-label="Key">${prefix}…`)) return row.slice(0, row.indexOf('"'));
  }
  throw new Error(`no row for ${prefix}`);
}

/** The full key shown once on the page after creation. */
export function createdKey(body: string): string {
  const match = /id="new-key-value" type="text" readonly value="([^"]+)"/.exec(body);
  if (!match) throw new Error('no new key on the page');
  return match[1]!;
}
