import { describe, expect, it } from 'vitest';
import { createEgressPolicy, EgressDenied, type LookupFn } from '../../src/net/policy.js';

/** A resolver that never touches the network: names map to fixed answers. */
function stubLookup(table: Record<string, string[]>): LookupFn {
  return async (hostname) => {
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const lookup = stubLookup({
  'public.example': ['93.184.215.14'],
  'public6.example': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.215.14', '10.0.0.7'],
  'intranet.example': ['10.1.2.3'],
  'mapped.example': ['::ffff:192.168.1.1'],
});

const policy = createEgressPolicy({ allow: [], lookup });

async function denial(url: string): Promise<string> {
  try {
    await policy.checkUrl(url);
  } catch (err) {
    expect(err).toBeInstanceOf(EgressDenied);
    return (err as Error).message;
  }
  throw new Error(`${url} was allowed`);
}

describe('egress policy: forbidden addresses', () => {
  it.each([
    ['http://127.0.0.1/', 'address 127.0.0.1 is loopback'],
    ['http://2130706433/', 'address 127.0.0.1 is loopback'],
    ['http://0x7f.1/', 'address 127.0.0.1 is loopback'],
    ['http://0x7f000001/', 'address 127.0.0.1 is loopback'],
    ['http://017700000001/', 'address 127.0.0.1 is loopback'],
    ['http://127.1/', 'address 127.0.0.1 is loopback'],
    ['http://127.0.0.1.:8080/', 'address 127.0.0.1 is loopback'],
    ['http://[::1]/', 'address ::1 is loopback'],
    ['http://[::ffff:127.0.0.1]/', 'address ::ffff:7f00:1 is loopback'],
    ['http://[::ffff:7f00:1]/', 'address ::ffff:7f00:1 is loopback'],
    ['http://localhost/', 'host localhost is loopback'],
    ['http://localhost./', 'host localhost is loopback'],
    ['http://LOCALHOST:3000/', 'host localhost is loopback'],
    ['http://api.localhost/', 'host api.localhost is loopback'],
    ['http://0.0.0.0/', 'address 0.0.0.0 is unspecified'],
    ['http://0/', 'address 0.0.0.0 is unspecified'],
    ['http://[::]/', 'address :: is unspecified'],
    ['http://10.0.0.1/', 'address 10.0.0.1 is private'],
    ['http://172.16.5.4/', 'address 172.16.5.4 is private'],
    ['http://192.168.0.1/', 'address 192.168.0.1 is private'],
    ['http://169.254.169.254/latest/meta-data/', 'address 169.254.169.254 is link-local'],
    ['http://100.64.0.1/', 'address 100.64.0.1 is carrier-grade NAT'],
    ['http://224.0.0.1/', 'address 224.0.0.1 is multicast'],
    ['http://255.255.255.255/', 'address 255.255.255.255 is broadcast'],
    ['http://240.0.0.1/', 'address 240.0.0.1 is reserved'],
    ['http://192.0.2.1/', 'address 192.0.2.1 is reserved'],
    ['http://198.51.100.1/', 'address 198.51.100.1 is reserved'],
    ['http://203.0.113.1/', 'address 203.0.113.1 is reserved'],
    ['http://198.18.0.1/', 'address 198.18.0.1 is reserved'],
    ['http://192.0.0.8/', 'address 192.0.0.8 is reserved'],
    ['http://[fc00::1]/', 'address fc00::1 is unique-local'],
    ['http://[fd12:3456::1]/', 'address fd12:3456::1 is unique-local'],
    ['http://[fe80::1]/', 'address fe80::1 is link-local'],
    ['http://[fec0::1]/', 'address fec0::1 is site-local'],
    ['http://[ff02::1]/', 'address ff02::1 is multicast'],
    ['http://[2001:db8::1]/', 'address 2001:db8::1 is reserved'],
    ['http://[2001::1]/', 'address 2001::1 is Teredo'],
    ['http://[64:ff9b::a00:1]/', 'address 64:ff9b::a00:1 is private'],
    ['http://[64:ff9b::7f00:1]/', 'address 64:ff9b::7f00:1 is loopback'],
    ['http://[2002:a9fe:a9fe::]/', 'address 2002:a9fe:a9fe:: is link-local'],
    ['http://[::127.0.0.1]/', 'address ::7f00:1 is reserved'],
  ])('%s is refused', async (url, message) => {
    expect(await denial(url)).toBe(`${message} (EGRESS_ALLOW lets an operator allow it)`);
  });

  it('refuses names that resolve to forbidden addresses', async () => {
    expect(await denial('https://metadata.example/')).toBe(
      'host metadata.example resolves to a link-local address (EGRESS_ALLOW lets an operator allow it)',
    );
    expect(await denial('https://intranet.example/')).toBe(
      'host intranet.example resolves to a private address (EGRESS_ALLOW lets an operator allow it)',
    );
    expect(await denial('https://mapped.example/')).toBe(
      'host mapped.example resolves to a private address (EGRESS_ALLOW lets an operator allow it)',
    );
  });

  it('refuses a host when any one of its addresses is forbidden', async () => {
    expect(await denial('https://mixed.example/')).toBe(
      'host mixed.example resolves to a private address (EGRESS_ALLOW lets an operator allow it)',
    );
  });

  it.each(['ftp://public.example/', 'file:///etc/passwd', 'gopher://public.example/', 'javascript:alert(1)', 'data:text/html,x'])(
    'refuses the scheme of %s',
    async (url) => {
      expect(await denial(url)).toMatch(/^scheme "[a-z]+" is not allowed/);
    },
  );

  it('refuses malformed URLs', async () => {
    expect(await denial('not a url')).toBe('url is malformed');
    expect(await denial('http://exa mple.com/')).toBe('url is malformed');
  });
});

describe('egress policy: allowed destinations', () => {
  it('pins public names to their resolved address', async () => {
    const target = await policy.checkUrl('https://public.example/a?b=1');
    expect(target).toMatchObject({ address: '93.184.215.14', family: 4 });
    expect(target.url.href).toBe('https://public.example/a?b=1');
    expect(await policy.resolve('public6.example')).toEqual({ address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 });
  });

  it('allows public literals, NAT64 and IPv4-mapped forms of public addresses', async () => {
    expect(await policy.resolve('8.8.8.8')).toEqual({ address: '8.8.8.8', family: 4 });
    expect(await policy.resolve('[::ffff:8.8.8.8]')).toEqual({ address: '8.8.8.8', family: 4 });
    expect(await policy.resolve('64:ff9b::808:808')).toEqual({ address: '64:ff9b::808:808', family: 6 });
  });

  it('lets DNS failures through as ordinary errors, not denials', async () => {
    const err = await policy.checkUrl('https://nowhere.example/').catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(EgressDenied);
    expect((err as { code?: string }).code).toBe('ENOTFOUND');
  });

  it('allowsAddress applies address classes to literals in any notation', () => {
    expect(policy.allowsAddress('8.8.8.8')).toBe(true);
    expect(policy.allowsAddress('2606:4700::1111')).toBe(true);
    expect(policy.allowsAddress('127.0.0.1')).toBe(false);
    expect(policy.allowsAddress('2130706433')).toBe(false);
    expect(policy.allowsAddress('::ffff:10.0.0.1')).toBe(false);
    expect(policy.allowsAddress('[::1]')).toBe(false);
    expect(policy.allowsAddress('not-an-ip')).toBe(false);
  });
});

describe('EGRESS_ALLOW', () => {
  it('CIDR entries open exactly their range, IPv4-mapped spellings included', async () => {
    const p = createEgressPolicy({ allow: ['127.0.0.2/32', '10.0.0.0/8', 'fd00::/8'], lookup });
    expect(await p.resolve('127.0.0.2')).toEqual({ address: '127.0.0.2', family: 4 });
    expect(p.allowsAddress('::ffff:127.0.0.2')).toBe(true);
    expect(p.allowsAddress('127.0.0.1')).toBe(false);
    expect(p.allowsAddress('10.200.0.1')).toBe(true);
    expect(p.allowsAddress('fd00::5')).toBe(true);
    expect(await p.resolve('intranet.example')).toEqual({ address: '10.1.2.3', family: 4 });
    await expect(p.resolve('localhost')).rejects.toThrow('host localhost is loopback');
  });

  it('a bare address entry is a single-host range', () => {
    const p = createEgressPolicy({ allow: ['127.0.0.1'], lookup });
    expect(p.allowsAddress('127.0.0.1')).toBe(true);
    expect(p.allowsAddress('127.0.0.2')).toBe(false);
  });

  it('host-name entries allow that host whatever it resolves to, and nothing else', async () => {
    const p = createEgressPolicy({ allow: ['intranet.example', 'localhost'], lookup });
    expect(await p.resolve('INTRANET.example.')).toEqual({ address: '10.1.2.3', family: 4 });
    expect(await p.resolve('localhost')).toEqual({ address: '127.0.0.1', family: 4 });
    await expect(p.resolve('metadata.example')).rejects.toThrow(EgressDenied);
    await expect(p.resolve('127.0.0.1')).rejects.toThrow('address 127.0.0.1 is loopback');
    expect(p.allowsAddress('10.1.2.3')).toBe(false);
  });
});
