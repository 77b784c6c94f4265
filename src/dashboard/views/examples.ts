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

/** A copy-paste curl command that fetches a page's metadata. */
export function metadataCurl(url: string, key = '$PAGEWORKS_METADATA_KEY'): string {
  return [
    `curl -G "${base(url)}/v1/fetch" \\`,
    `  -H "X-API-Key: ${key}" \\`,
    `  --data-urlencode "url=https://example.com"`,
  ].join('\n');
}
