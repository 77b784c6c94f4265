/** Base addresses of the two API services, as users reach them. */
export interface PublicUrls {
  render: string;
  metadata: string;
}

function base(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The OpenAPI page of a service. */
export function docsUrl(url: string): string {
  return `${base(url)}/docs`;
}

/** A copy-paste curl command that renders a first PDF. */
export function renderCurl(url: string, key = '$PAGEWORKS_RENDER_KEY'): string {
  return [
    `curl -X POST "${base(url)}/v1/render" \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"html": "<h1>Hello from Pageworks</h1>", "options": {"format": "A4"}}' \\`,
    `  -o hello.pdf`,
  ].join('\n');
}

/** A copy-paste curl command that assembles a rendered invoice and an uploaded PDF into one file. */
export function assembleCurl(url: string, key = '$PAGEWORKS_RENDER_KEY'): string {
  return [
    `curl -X POST "${base(url)}/v1/assemble" \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -F 'body={"parts": [{"html": "<h1>Invoice 42</h1>", "title": "Invoice"}, {"file": "terms.pdf", "title": "Terms"}]}' \\`,
    `  -F 'files=@terms.pdf;type=application/pdf' \\`,
    `  -o invoice-with-terms.pdf`,
  ].join('\n');
}

/** A copy-paste curl command that fetches a page's metadata. */
export function metadataCurl(url: string, key = '$PAGEWORKS_METADATA_KEY'): string {
  return [
    `curl -G "${base(url)}/v1/fetch" \\`,
    `  -H "X-API-Key: ${key}" \\`,
    `  --data-urlencode "url=https://example.com"`,
  ].join('\n');
}

/** A copy-paste curl command that submits a render job whose end is announced by a webhook. */
export function jobCurl(url: string, key = '$PAGEWORKS_RENDER_KEY'): string {
  return [
    `curl -X POST "${base(url)}/v1/jobs" \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -H "Idempotency-Key: invoice-2025-0042" \\`,
    `  -d '{"html": "<h1>Invoice 42</h1>", "reference": "invoice-2025-0042", "webhook": {"url": "https://example.com/hooks/pageworks"}}'`,
  ].join('\n');
}

/** A webhook receiver (Node, Fastify) that checks each delivery with the client's verifyWebhook before trusting it. */
export function verifyWebhookExample(): string {
  return [
    `import Fastify from 'fastify';`,
    `import { verifyWebhook, WebhookVerificationError } from '@pageworks/client';`,
    ``,
    `const app = Fastify();`,
    `// The raw body, exactly as sent: a re-serialised JSON object would not verify.`,
    `app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));`,
    `app.post('/hooks/pageworks', async (request, reply) => {`,
    `  try {`,
    `    const event = verifyWebhook(process.env.PAGEWORKS_WEBHOOK_SECRET, request.headers, request.body);`,
    `    if (event.type === 'job.succeeded') console.log(event.data.id, event.data.pdf?.url);`,
    `    // Succeeded is not always complete: each warning is something the document could not get.`,
    `    for (const warning of event.data.warnings) console.log(\`\${event.data.id}: \${warning.message}\`);`,
    `    return reply.code(204).send();`,
    `  } catch (err) {`,
    `    if (err instanceof WebhookVerificationError) return reply.code(400).send();`,
    `    throw err;`,
    `  }`,
    `});`,
    `await app.listen({ port: 8080 });`,
  ].join('\n');
}
