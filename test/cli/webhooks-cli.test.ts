import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { runPageworks } from '../helpers/cli.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-cli-hooks-'));

/** `pageworks …` on this file's embedded store. */
function pageworks(args: string[]) {
  return runPageworks(dataDir, args);
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('pageworks webhooks secret', () => {
  it('prints the account secret alone on stdout, the same each time, and a new one on --rotate', () => {
    expect(pageworks(['accounts', 'create', '--email', 'hooks@example.com']).code).toBe(0);
    const first = pageworks(['webhooks', 'secret', '--email', 'hooks@example.com']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
    const secret = first.stdout.trim();
    // The package that receivers use accepts it as a signing secret (at least 24 random bytes).
    expect(Buffer.from(secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(() => new Webhook(secret)).not.toThrow();
    expect(pageworks(['webhooks', 'secret', '--email', 'HOOKS@example.com']).stdout.trim()).toBe(secret);

    const rotated = pageworks(['webhooks', 'secret', '--email', 'hooks@example.com', '--rotate']);
    expect(rotated.code).toBe(0);
    const next = rotated.stdout.trim();
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    expect(rotated.stderr).toContain('rotated');
    expect(pageworks(['webhooks', 'secret', '--email', 'hooks@example.com']).stdout.trim()).toBe(next);
  });

  it('an unknown account or a missing --email is one line on stderr with exit code 2', () => {
    const unknown = pageworks(['webhooks', 'secret', '--email', 'nobody@example.com']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe(
      `pageworks: no account for nobody@example.com in ${path.join(dataDir, 'pageworks.sqlite')} (PAGEWORKS_DATA_DIR)\n`,
    );
    const missing = pageworks(['webhooks', 'secret']);
    expect(missing).toMatchObject({ code: 2, stderr: 'pageworks: missing --email\n' });
    expect(pageworks(['webhooks', 'list']).stderr).toBe('pageworks: unknown command "webhooks list"\n');
  });
});
