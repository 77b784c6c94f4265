/**
 * The `multipart/form-data` body of POST /v1/assemble and POST /v1/jobs, as a Fastify content type
 * parser for the scope of those routes alone (POST /v1/render still takes JSON only): the JSON of the
 * form's `body` field becomes the request body, carrying the uploaded files' names (schema.ts
 * UPLOADED_NAMES) for its validator, and the files themselves stay on disk until the answer is sent.
 */
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifyRequest } from 'fastify';
import { invalid } from '../errors.js';
import type { ServiceApp } from '../service-app-type.js';
import { readMultipartAssemble, removeUploads, type Uploads } from './multipart-upload.js';
import { UPLOADED_NAMES, UPLOADS_NOT_PDF } from './schema.js';

/** The uploaded files of each multipart request, removed once it is answered. */
const uploadsOf = new WeakMap<FastifyRequest, Uploads>();

/** The files a multipart request uploaded (undefined for a JSON request). */
export function requestUploads(request: FastifyRequest): Uploads | undefined {
  return uploadsOf.get(request);
}

/**
 * Makes `scope` read multipart bodies of at most `maxBytes` (the JSON body's own limit), and remove a
 * request's files once its answer is sent, whatever the answer was.
 */
export function acceptMultipart(scope: ServiceApp, maxBytes: number): void {
  scope.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    readMultipartAssemble(payload, String(request.headers['content-type']), maxBytes).then((read) => {
      uploadsOf.set(request, read.uploads);
      let body: unknown;
      try {
        body = JSON.parse(read.json);
      } catch {
        done(invalid('body: the "body" field of the form is not valid JSON'));
        return;
      }
      if (body !== null && typeof body === 'object') {
        const files = [...read.uploads.files];
        Object.defineProperty(body, UPLOADED_NAMES, { value: new Set(files.map(([name]) => name)), enumerable: false });
        const notPdf = new Set(files.filter(([, file]) => file.pdf === false).map(([name]) => name));
        Object.defineProperty(body, UPLOADS_NOT_PDF, { value: notPdf, enumerable: false });
      }
      done(null, body);
    }, done);
  });
  scope.addHook('onResponse', async (request) => {
    const uploads = uploadsOf.get(request);
    if (uploads) await removeUploads(uploads);
  });
}

/**
 * The route's `config.swaggerTransform`: its OpenAPI request body lists both media types, the JSON
 * request and the form (a `body` field holding that JSON, and the files parts name). Documentation
 * only: the route's validator still gets the one body the parser made. Typed as @fastify/swagger's,
 * whose declaration of `config.swaggerTransform` then comes with it wherever the routes are compiled
 * (the client package's type check included), beside the service's own route config.
 */
export function multipartDocs(json: object): SwaggerTransform {
  const form = {
    type: 'object',
    required: ['body'],
    properties: {
      body: {
        ...json,
        description:
          'The JSON request, as sent with Content-Type application/json; a part {"file": "terms.pdf"} names a file of the form.',
      },
      files: {
        type: 'array',
        items: { type: 'string', format: 'binary' },
        description:
          'PDFs under any field name but `body`, each with the filename a part names (`filename="terms.pdf"` for {"file": "terms.pdf"}); streamed to disk, at most 200, bounded with the body as a JSON request is.',
      },
    },
  };
  return ({ schema, url }: { schema: object; url: string }) => ({
    url,
    schema: {
      ...schema,
      body: { content: { 'application/json': { schema: json }, 'multipart/form-data': { schema: form } } },
    },
  });
}
