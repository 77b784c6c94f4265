import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_PKCS12_BYTES } from '../../accounts/certificates.js';
import { RenderError } from '../../errors.js';
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
import { acceptMultipart, type MultipartBody, type UploadedFile } from '../multipart.js';
import { type CertificatesPageModel, certificatesPage, deleteCertificatePage } from '../views/certificates-view.js';
import { errorPage } from '../views/error-view.js';

/** The service's upload errors say "pkcs12: …" and speak of base64, as the API does; the page speaks of the file. */
function uploadMessage(error: RenderError): string {
  const text = error.message
    .replace(/^pkcs12: /, '')
    .replace(/^larger than/, 'the file is larger than')
    .replace(/ \(give the \.p12\/\.pfx file, base64-encoded\)/, ' (choose the .p12 or .pfx file)');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${text.endsWith('.') ? '' : '.'}`;
}

/** The Signing certificates page: list, upload (PKCS#12, multipart), delete with a confirmation step. */
export function registerCertificatesRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const certificates = ctx.core.certificates;

  const model = async (request: FastifyRequest, extra: Partial<CertificatesPageModel> = {}): Promise<CertificatesPageModel> => {
    const signedIn = signedInOf(request);
    return {
      viewer: viewerOf(signedIn),
      certificates: await certificates.list(signedIn.account.id),
      now: Date.now(),
      enabled: certificates.enabled,
      ...extra,
    };
  };

  const notFound = (request: FastifyRequest) =>
    errorPage({
      title: 'Certificate not found',
      message: 'There is no signing certificate with this id in your account.',
      viewer: viewerOf(signedInOf(request)),
    });

  app.get('/certificates', { preHandler: requireSignedIn }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    let notice: string | undefined;
    if (query.deleted !== undefined) notice = 'The certificate was deleted. Requests that sign with it are now refused.';
    const m = await model(request, { notice });
    const uploaded = query.uploaded && m.certificates.find((c) => c.id === query.uploaded);
    if (uploaded) m.notice = `Certificate ${uploaded.id} (${uploaded.subject}) was uploaded. Sign with it using its id.`;
    return sendPage(reply, 200, certificatesPage(m));
  });

  // The file input needs multipart/form-data; only this route takes it (the rest of the dashboard stays urlencoded).
  // A callback plugin (no Promise for the caller to drop): the scope only adds the parser and the route.
  app.register((scope, _opts, done) => {
    // Room for the largest accepted file and the form around it; the service says when the file itself is too large.
    acceptMultipart(scope, MAX_PKCS12_BYTES * 2 + 16 * 1024);
    scope.post('/certificates', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
      const body = (request.body ?? {}) as MultipartBody;
      const file = typeof body.pkcs12 === 'object' ? (body.pkcs12 as UploadedFile) : undefined;
      const name = field(request, 'name').trim();
      const refuse = async (status: number, error: string) =>
        sendPage(reply, status, certificatesPage(await model(request, { error, name })));
      if (!file || file.data.length === 0) return refuse(400, 'Choose the .p12 or .pfx file to upload.');
      try {
        const uploaded = await certificates.upload(
          signedInOf(request).account.id,
          // The password is read here and nowhere else: never logged, never put back in the form.
          { pkcs12: file.data, password: field(request, 'password'), name: name || null },
          { actor: 'dashboard', client: clientOf(request) },
        );
        return reply.redirect(`/certificates?uploaded=${encodeURIComponent(uploaded.id)}`, 303);
      } catch (error) {
        if (!(error instanceof RenderError) || (error.status >= 500 && error.code !== 'SERVICE_UNAVAILABLE')) throw error;
        if (error.code === 'SERVICE_UNAVAILABLE')
          return refuse(503, 'This server cannot take certificates: SECRETS_KEY is not set.');
        return refuse(error.status, uploadMessage(error));
      }
    });
    done();
  });

  app.get<{ Params: { id: string } }>('/certificates/:id/delete', { preHandler: requireSignedIn }, async (request, reply) => {
    const list = await certificates.list(signedInOf(request).account.id);
    const found = list.find((c) => c.id === request.params.id);
    // Someone else's certificate and none at all look the same: 404.
    if (!found) return sendPage(reply, 404, notFound(request));
    return sendPage(reply, 200, deleteCertificatePage(viewerOf(signedInOf(request)), found));
  });

  app.post<{ Params: { id: string } }>(
    '/certificates/:id/delete',
    { preHandler: [requireSignedIn, requireCsrf] },
    async (request, reply) => {
      if (!isId('crt', request.params.id)) return sendPage(reply, 404, notFound(request));
      try {
        await certificates.delete(signedInOf(request).account.id, request.params.id, {
          actor: 'dashboard',
          client: clientOf(request),
        });
      } catch (error) {
        if (error instanceof RenderError && error.code === 'NOT_FOUND') return sendPage(reply, 404, notFound(request));
        throw error;
      }
      return reply.redirect('/certificates?deleted', 303);
    },
  );
}
