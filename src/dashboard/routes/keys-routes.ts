import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unshowableCharacterProblem } from '../../accounts/user-text.js';
import { isId } from '../../ids.js';
import {
  clientOf,
  type DashboardContext,
  field,
  requireCsrf,
  requireSignedIn,
  sendPage,
  signedInOf,
  viewerOf,
} from '../context.js';
import { KeyReveals } from '../key-reveal.js';
import { keyActivity, windowStart } from '../usage-series.js';
import { errorPage } from '../views/error-view.js';
import { ACTIVITY_DAYS, type KeysPageModel, keysPage, MAX_KEY_NAME, revokePage } from '../views/keys-view.js';

/** The name without control and format characters (Unicode Cc and Cf, what unshowableCharacterProblem refuses). */
function withoutUnshowable(name: string): string {
  return name.replace(/[\p{Cc}\p{Cf}]/gu, '');
}

/** The API keys page: list, create (full key shown once), revoke with a confirmation step. */
export function registerKeysRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core, urls } = ctx;
  const reveals = new KeyReveals(core.store);
  // The raw session id (the sealing secret of a new key) is in the cookie; the store has only its hash.
  const sessionOf = (request: FastifyRequest) => {
    const id = request.cookies[ctx.cookies.session];
    // A signed-in request was recognised by this cookie.
    if (id === undefined) throw new Error('keys: a signed-in request without its session cookie');
    return { id, idHash: signedInOf(request).session.idHash };
  };

  const activityOf = async (accountId: string, now: number) => {
    // Usage and last-used times are batched in memory; write this process's pending ones so the list is current.
    await Promise.all([core.lastUsed.flush(), core.usage.flush()]);
    return keyActivity(await core.store.keyUsageSince(accountId, windowStart(now, ACTIVITY_DAYS)));
  };

  const model = async (request: FastifyRequest, extra: Partial<KeysPageModel> = {}): Promise<KeysPageModel> => {
    const signedIn = signedInOf(request);
    const now = Date.now();
    const activity = await activityOf(signedIn.account.id, now);
    const keys = await core.keys.list(signedIn.account.id);
    return { viewer: viewerOf(signedIn), keys, urls, now, activity, ...extra };
  };

  const notFound = (request: FastifyRequest) =>
    errorPage({
      title: 'Key not found',
      message: 'There is no active key with this id in your account.',
      viewer: viewerOf(signedInOf(request)),
    });

  app.get('/keys', { preHandler: requireSignedIn }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const m = await model(request);
    let notice: string | undefined;
    if (query.welcome !== undefined)
      notice = 'Welcome to Pageworks! Create a key below, then follow the example to send your first request.';
    const revoked = query.revoked && m.keys.find((k) => k.id === query.revoked && k.revokedAt !== null);
    if (revoked) notice = `Key ${revoked.displayPrefix}… was revoked. Requests that use it are now refused.`;
    // Right after "Create key": the new key, held sealed for this one view. A reload finds it gone.
    const fresh = query.created ? m.keys.find((k) => k.id === query.created && k.revokedAt === null) : undefined;
    const secret = fresh && (await reveals.take(sessionOf(request), fresh.id));
    if (fresh && secret)
      return sendPage(reply, 200, keysPage({ ...m, notice, created: { service: fresh.service, key: secret, record: fresh } }));
    return sendPage(reply, 200, keysPage({ ...m, notice, shownBefore: fresh }));
  });

  app.post('/keys', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const service = field(request, 'service');
    if (service !== 'render' && service !== 'metadata') {
      return sendPage(
        reply,
        400,
        errorPage({
          title: 'Unknown service',
          message: 'Keys exist for the render and metadata services only.',
          viewer: viewerOf(signedInOf(request)),
        }),
      );
    }
    const name = field(request, 'name').trim();
    const unshowable = unshowableCharacterProblem('the name', name);
    const invalid =
      name.length > MAX_KEY_NAME
        ? `Use a name of at most ${MAX_KEY_NAME} characters.`
        : unshowable
          ? `${unshowable.replace(/^./, (c) => c.toUpperCase())}. It is taken out of the name below: check it and create the key again.`
          : undefined;
    // The name goes back into its field, without the characters that could not be shown (they would act, unseen).
    if (invalid)
      return sendPage(
        reply,
        400,
        keysPage(await model(request, { error: { service, message: invalid, name: withoutUnshowable(name) } })),
      );
    const created = await core.keys.create(signedInOf(request).account.id, service, name || null);
    await core.activity.record(created.record.accountId, 'key_created', 'dashboard', {
      client: clientOf(request),
      detail: `${created.record.displayPrefix}… (${service})`,
    });
    // POST → redirect → GET: a reload shows the list and never creates a second key. The full key waits,
    // sealed with the session id, for that one GET (key-reveal.ts); the fragment scrolls it into view.
    await reveals.hold(sessionOf(request), created.record.id, created.key);
    return reply.redirect(`/keys?created=${encodeURIComponent(created.record.id)}#new-key`, 303);
  });

  app.get<{ Params: { id: string } }>('/keys/:id/revoke', { preHandler: requireSignedIn }, async (request, reply) => {
    const accountId = signedInOf(request).account.id;
    const now = Date.now();
    const activity = await activityOf(accountId, now);
    const keys = await core.keys.list(accountId);
    const key = keys.find((k) => k.id === request.params.id && k.revokedAt === null);
    // Someone else's key and no key at all look the same: 404.
    if (!key) return sendPage(reply, 404, notFound(request));
    return sendPage(reply, 200, revokePage(viewerOf(signedInOf(request)), key, activity.get(key.id), now));
  });

  app.post<{ Params: { id: string } }>(
    '/keys/:id/revoke',
    { preHandler: [requireSignedIn, requireCsrf] },
    async (request, reply) => {
      const accountId = signedInOf(request).account.id;
      // Not an id at all (a NUL byte, say) is the same 404, before the store sees it.
      const revoked = isId('key', request.params.id) && (await core.keys.revoke(request.params.id, accountId));
      if (!revoked) return sendPage(reply, 404, notFound(request));
      const gone = (await core.keys.list(accountId)).find((k) => k.id === request.params.id);
      await core.activity.record(accountId, 'key_revoked', 'dashboard', {
        client: clientOf(request),
        detail: `${gone?.displayPrefix}… (${gone?.service})`,
      });
      request.log.info({ keyId: request.params.id, accountId }, 'API key revoked');
      return reply.redirect(`/keys?revoked=${encodeURIComponent(request.params.id)}`, 303);
    },
  );
}
