import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiService } from '../../config.js';
import { type DashboardContext, clientOf, field, requireCsrf, requireSignedIn, sendPage, viewerOf } from '../context.js';
import { errorPage } from '../views/error-view.js';
import { type KeysPageModel, MAX_KEY_NAME, keysPage, revokePage } from '../views/keys-view.js';

// Control characters in a name would only confuse lists and logs.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The API keys page: list, create (full key shown once), revoke with a confirmation step. */
export function registerKeysRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core, urls } = ctx;

  const model = async (request: FastifyRequest, extra: Partial<KeysPageModel> = {}): Promise<KeysPageModel> => {
    const signedIn = request.signedIn!;
    // last-used times are batched in memory; write this process's pending ones so the list is current.
    await core.lastUsed.flush();
    const keys = await core.keys.list(signedIn.account.id);
    return { viewer: viewerOf(signedIn), keys, urls, now: Date.now(), ...extra };
  };

  const notFound = (request: FastifyRequest) =>
    errorPage({ title: 'Key not found', message: 'There is no active key with this id in your account.', viewer: viewerOf(request.signedIn!) });

  app.get('/keys', { preHandler: requireSignedIn }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const m = await model(request);
    let notice: string | undefined;
    if (query.welcome !== undefined) notice = 'Welcome to Pageworks! Create a key below, then follow the example to send your first request.';
    const revoked = query.revoked && m.keys.find((k) => k.id === query.revoked && k.revokedAt !== null);
    if (revoked) notice = `Key ${revoked.displayPrefix}… was revoked. Requests that use it are now refused.`;
    return sendPage(reply, 200, keysPage({ ...m, notice }));
  });

  app.post('/keys', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const service = field(request, 'service');
    if (service !== 'render' && service !== 'metadata') {
      return sendPage(reply, 400, errorPage({ title: 'Unknown service', message: 'Keys exist for the render and metadata services only.', viewer: viewerOf(request.signedIn!) }));
    }
    const name = field(request, 'name').trim();
    const invalid = name.length > MAX_KEY_NAME ? `Use a name of at most ${MAX_KEY_NAME} characters.` : CONTROL.test(name) ? 'The name cannot contain control characters.' : undefined;
    if (invalid) return sendPage(reply, 400, keysPage(await model(request, { error: { service: service as ApiService, message: invalid } })));
    const created = await core.keys.create(request.signedIn!.account.id, service, name || null);
    await core.activity.record(created.record.accountId, 'key_created', 'dashboard', { client: clientOf(request), detail: `${created.record.displayPrefix}… (${service})` });
    // The full key is in this response only: no-store keeps it out of caches, nothing keeps it server-side.
    return sendPage(reply, 200, keysPage(await model(request, { created: { service, key: created.key, record: created.record } })));
  });

  app.get<{ Params: { id: string } }>('/keys/:id/revoke', { preHandler: requireSignedIn }, async (request, reply) => {
    const keys = await core.keys.list(request.signedIn!.account.id);
    const key = keys.find((k) => k.id === request.params.id && k.revokedAt === null);
    // Someone else's key and no key at all look the same: 404.
    if (!key) return sendPage(reply, 404, notFound(request));
    return sendPage(reply, 200, revokePage(viewerOf(request.signedIn!), key));
  });

  app.post<{ Params: { id: string } }>('/keys/:id/revoke', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const revoked = await core.keys.revoke(request.params.id, request.signedIn!.account.id);
    if (!revoked) return sendPage(reply, 404, notFound(request));
    const gone = (await core.keys.list(request.signedIn!.account.id)).find((k) => k.id === request.params.id);
    await core.activity.record(request.signedIn!.account.id, 'key_revoked', 'dashboard', { client: clientOf(request), detail: `${gone?.displayPrefix}… (${gone?.service})` });
    request.log.info({ keyId: request.params.id, accountId: request.signedIn!.account.id }, 'API key revoked');
    return reply.redirect(`/keys?revoked=${encodeURIComponent(request.params.id)}`, 303);
  });
}
