/**
 * `pageworks/client` as a user imports it: the package's `exports` map, resolved by Node from the
 * built `dist/` (npm test's set-up builds it), with type declarations beside the code.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

describe('package export', () => {
  it('resolves pageworks/client to the built client with its declarations', async () => {
    const script = `import * as client from 'pageworks/client'; console.log(Object.keys(client).sort().join(','));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    expect(stdout.trim()).toBe(
      'CertificatesClient,JobsClient,MetadataApiError,MetadataClient,PageworksError,RenderApiError,RenderClient,WebhookVerificationError,verifyWebhook',
    );
    expect(fs.existsSync('dist/client/index.d.ts')).toBe(true);
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
    expect(pkg.exports['./client']).toEqual({ types: './dist/client/index.d.ts', default: './dist/client/index.js' });
    expect(fs.existsSync(pkg.bin.pageworks)).toBe(true);
  });
});
