// PUT/GET /api/v1/tenant/webhook — black-box, per spec, contract and the issue 4 decisions (Configuration). A URL is
// stored and shown as the WHATWG URL parser writes it (issue 41; test/workers/webhooks/url-shown.test.ts).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, useServerWithAccounts, type Client } from '../../helpers/server.js';
import { expectError, expectValidation } from '../../helpers/expect.js';

const PATH = '/api/v1/tenant/webhook';
const HEX64 = /^[0-9a-f]{64}$/;
const FROM_ALL = '2000-01-01T00:00:00.000Z';
const TO_ALL = '2100-01-01T00:00:00.000Z';

const put = (c: Client, body: unknown) => c.request('PUT', PATH, { body });
const putRaw = (c: Client, rawBody: string) => c.request('PUT', PATH, { rawBody });

/** A resolver standing in for DNS: names it does not know do not resolve (it throws). */
const DNS: Record<string, string[]> = {
  'loop.test': ['127.0.0.1'],
  'loop-other.test': ['127.8.9.10'],
  'private10.test': ['10.1.2.3'],
  'private172.test': ['172.20.0.5'],
  'private192.test': ['192.168.0.10'],
  'metadata.test': ['169.254.169.254'],
  'cgnat.test': ['100.64.3.4'],
  'zero.test': ['0.0.0.0'],
  'v6loop.test': ['::1'],
  'v6ula.test': ['fd00:ec2::254'],
  'v6linklocal.test': ['fe80::1'],
  'v6mapped.test': ['::ffff:127.0.0.1'],
  'v6nat64.test': ['64:ff9b::a00:1'],
  'mixed.test': ['8.8.8.8', '10.0.0.1'],
  'mixed-v6.test': ['2606:4700:4700::1111', '::1'],
  'mixed-order.test': ['192.168.1.1', '1.1.1.1'],
  'hooks.public.test': ['93.184.216.34'],
  'hooks6.public.test': ['2606:4700:4700::1111', '8.8.4.4'],
  localhost: ['127.0.0.1'],
};
const resolverCalls: string[] = [];
const testResolver = async (host: string): Promise<string[]> => {
  resolverCalls.push(host);
  // Exact names only: a name with a trailing dot resolves here only if the server strips it, as a system resolver would.
  const addresses = DNS[host.toLowerCase()];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses;
};

/** Destinations every server without allowPrivate must refuse with 400 and not store. */
const FORBIDDEN: Array<[string, string]> = [
  // IPv4 loopback in every spelling the WHATWG parser accepts
  ['loopback dotted', 'https://127.0.0.1/hook'],
  ['loopback with port', 'https://127.0.0.1:8443/hook'],
  ['loopback elsewhere in 127/8', 'https://127.255.255.254/hook'],
  ['loopback decimal', 'https://2130706433/hook'],
  ['loopback octal parts', 'https://0177.0.0.1/hook'],
  ['loopback octal whole', 'https://017700000001/hook'],
  ['loopback hex parts', 'https://0x7f.0.0.1/hook'],
  ['loopback hex whole', 'https://0x7f000001/hook'],
  ['loopback short 127.1', 'https://127.1/hook'],
  ['loopback short 127.0.1', 'https://127.0.1/hook'],
  ['loopback trailing dot', 'https://127.0.0.1./hook'],
  ['loopback percent-encoded', 'https://%31%32%37.0.0.1/hook'],
  ['loopback full-width digits', 'https://\uFF11\uFF12\uFF17.0.0.1/hook'],
  // other non-public IPv4
  ['0.0.0.0', 'https://0.0.0.0/hook'],
  ['0 (0.0.0.0 short)', 'https://0/hook'],
  ['10/8', 'https://10.0.0.1/hook'],
  ['10/8 top', 'https://10.255.255.254/hook'],
  ['172.16/12 bottom', 'https://172.16.0.1/hook'],
  ['172.16/12 top', 'https://172.31.255.254/hook'],
  ['192.168/16', 'https://192.168.1.1/hook'],
  ['192.168/16 hex', 'https://0xc0a80101/hook'],
  ['cloud metadata 169.254.169.254', 'https://169.254.169.254/latest/meta-data/'],
  ['link-local 169.254/16', 'https://169.254.1.1/hook'],
  ['CGNAT 100.64/10', 'https://100.64.0.1/hook'],
  ['CGNAT top', 'https://100.127.255.254/hook'],
  ['benchmarking 198.18/15', 'https://198.18.0.1/hook'],
  ['documentation 192.0.2/24', 'https://192.0.2.1/hook'],
  ['documentation 203.0.113/24', 'https://203.0.113.7/hook'],
  ['reserved 240/4', 'https://240.0.0.1/hook'],
  ['multicast 224/4', 'https://224.0.0.1/hook'],
  ['broadcast', 'https://255.255.255.255/hook'],
  // IPv6
  ['[::1]', 'https://[::1]/hook'],
  ['[::1] long form', 'https://[0:0:0:0:0:0:0:1]/hook'],
  ['[::]', 'https://[::]/hook'],
  ['ULA fd00:ec2::254', 'https://[fd00:ec2::254]/hook'],
  ['ULA fc00::1', 'https://[fc00::1]/hook'],
  ['link-local fe80::1', 'https://[fe80::1]/hook'],
  ['multicast ff02::1', 'https://[ff02::1]/hook'],
  ['mapped ::ffff:127.0.0.1', 'https://[::ffff:127.0.0.1]/hook'],
  ['mapped ::ffff:7f00:1', 'https://[::ffff:7f00:1]/hook'],
  ['mapped ::ffff:10.0.0.1', 'https://[::ffff:10.0.0.1]/hook'],
  ['mapped ::ffff:169.254.169.254', 'https://[::ffff:a9fe:a9fe]/hook'],
  ['NAT64 64:ff9b::7f00:1', 'https://[64:ff9b::7f00:1]/hook'],
  ['6to4 2002:7f00:1::', 'https://[2002:7f00:1::]/hook'],
  ['Teredo 2001::1', 'https://[2001::1]/hook'],
  // IPv6 forms that carry a non-public IPv4 address
  ['IPv4-compatible [::127.0.0.1]', 'https://[::127.0.0.1]/hook'],
  ['IPv4-compatible [::169.254.169.254]', 'https://[::169.254.169.254]/hook'],
  ['IPv4-compatible [::10.0.0.1]', 'https://[::10.0.0.1]/hook'],
  ['IPv4-compatible in hex [::a9fe:a9fe]', 'https://[::a9fe:a9fe]/hook'],
  ['SIIT [::ffff:0:127.0.0.1]', 'https://[::ffff:0:127.0.0.1]/hook'],
  ['NAT64 carrying 10.0.0.1', 'https://[64:ff9b::10.0.0.1]/hook'],
  ['local-use NAT64 64:ff9b:1::', 'https://[64:ff9b:1::808:808]/hook'],
  ['6to4 carrying 192.168.1.1', 'https://[2002:c0a8:101::1]/hook'],
  ['Teredo with a private client', 'https://[2001:0:808:808::f5ff:fffe]/hook'],
  ['ISATAP carrying 127.0.0.1', 'https://[2606:4700::5efe:7f00:1]/hook'],
  // port 0, and surrounding whitespace
  ['port 0', 'https://8.8.8.8:0/hook'],
  ['leading space', ' https://8.8.8.8/hook'],
  ['trailing space', 'https://8.8.8.8/hook '],
  ['trailing newline', 'https://8.8.8.8/hook\n'],
  ['leading tab', '\thttps://8.8.8.8/hook'],
  // a trailing dot is the same name: resolved without it, and refused as it is
  ['name. → 127.0.0.1', 'https://loop.test./hook'],
  ['name. → 169.254.169.254', 'https://metadata.test./hook'],
  ['name. → ::1', 'https://v6loop.test./hook'],
  // local names (the test resolver does not know them, so only the name rule can refuse them)
  ['localhost', 'https://localhost/hook'],
  ['localhost with port', 'https://localhost:8443/hook'],
  ['LOCALHOST. (upper case, trailing dot)', 'https://LOCALHOST./hook'],
  ['x.localhost', 'https://x.localhost/hook'],
  ['printer.local', 'https://printer.local/hook'],
  ['metadata.google.internal', 'https://metadata.google.internal/computeMetadata/v1/'],
  ['router.home.arpa', 'https://router.home.arpa/hook'],
  ['ROUTER.HOME.ARPA.', 'https://ROUTER.HOME.ARPA./hook'],
  // deny list (server option denyDomains: ['blocked.example'])
  ['deny-listed domain', 'https://blocked.example/hook'],
  ['deny-listed subdomain', 'https://api.blocked.example/hook'],
  ['deny-listed deep subdomain', 'https://a.b.blocked.example/hook'],
  ['deny-listed, upper case and trailing dot', 'https://API.BLOCKED.EXAMPLE./hook'],
  // names the test resolver maps to non-public addresses
  ['name → 127.0.0.1', 'https://loop.test/hook'],
  ['name → 127.8.9.10', 'https://loop-other.test/hook'],
  ['name → 10.1.2.3', 'https://private10.test/hook'],
  ['name → 172.20.0.5', 'https://private172.test/hook'],
  ['name → 192.168.0.10', 'https://private192.test/hook'],
  ['name → 169.254.169.254', 'https://metadata.test/hook'],
  ['name → 100.64.3.4', 'https://cgnat.test/hook'],
  ['name → 0.0.0.0', 'https://zero.test/hook'],
  ['name → ::1', 'https://v6loop.test/hook'],
  ['name → fd00:ec2::254', 'https://v6ula.test/hook'],
  ['name → fe80::1', 'https://v6linklocal.test/hook'],
  ['name → ::ffff:127.0.0.1', 'https://v6mapped.test/hook'],
  ['name → 64:ff9b::a00:1', 'https://v6nat64.test/hook'],
  ['name → one public and one private IPv4', 'https://mixed.test/hook'],
  ['name → one public IPv6 and ::1', 'https://mixed-v6.test/hook'],
  ['name → private first, then public', 'https://mixed-order.test/hook'],
  // single-label names: the resolver's search domains complete them into the operator's own network
  ['single-label name', 'https://intranet/x'],
  ['single-label name with port', 'https://intranet:8443/x'],
  ['single-label name, upper case and trailing dot', 'https://INTRANET./x'],
];

/**
 * URLs refused by every server, allowPrivate or not (issue 29): control characters anywhere as written (a CR/LF URL was
 * stored and echoed back), and a user-info part, even an empty one (the parser drops `https://@host` without a trace).
 */
const NEVER: Array<[string, string, RegExp]> = [
  ['CR LF in the path', 'https://hooks.public.test/hook\r\nX-Injected: 1', /control characters \(U\+000D at position 31\)/],
  ['LF alone', 'https://hooks.public.test/a\nb', /U\+000A/],
  ['CR alone', 'https://8.8.8.8/a\rb', /U\+000D/],
  ['tab in the host', 'https://hooks.pub\tlic.test/hook', /U\+0009/],
  ['tab in the query', 'https://8.8.8.8/hook?a=\tb', /U\+0009/],
  ['DEL', 'https://8.8.8.8/a\u007fb', /U\+007F/],
  ['NUL', 'https://8.8.8.8/a\u0000b', /.+/],
  ['ESC, a terminal escape', 'https://8.8.8.8/\u001b[31mred', /U\+001B/],
  ['C1 control NEL', 'https://8.8.8.8/a\u0085b', /U\+0085/],
  ['vertical tab in the fragment', 'https://8.8.8.8/a#x\u000by', /U\+000B/],
  ['empty user-info', 'https://@8.8.8.8/hook', /empty user-info part/],
  ['empty user-info on a name', 'https://@hooks.public.test/x', /empty user-info part/],
  ['empty user and password', 'https://:@8.8.8.8/x', /empty user-info part/],
  ['empty user-info after backslashes', 'https:\\\\@8.8.8.8/x', /empty user-info part/],
];

describe('webhook configuration (server without allowPrivate, test resolver, denyDomains)', () => {
  let c: Client; // tenant 1 ADMIN
  let fresh: Client; // a tenant that never had a webhook (replaced if a wrongly accepted PUT gave it one)
  let configured: Client; // a tenant with a webhook already set
  let configuredUrl: string;
  let configuredSecret: string;

  /** PUTs a refused body on a never-configured and a configured tenant: 400 VALIDATION_FAILED and neither changes. */
  async function expectRefusedAndNothingStored(body: unknown) {
    const a = await put(fresh, body);
    const b = await put(configured, body);
    const freshGet = await fresh.get(PATH);
    const configuredGet = await configured.get(PATH);
    // keep later cases independent of a wrongly accepted one
    if (freshGet.status !== 404) fresh = client(t.url, (await createTenant(t.dbPath, 'Fresh')).apiKey.rawKey);
    if (b.status === 200) {
      const again = await put(configured, { webhookUrl: configuredUrl });
      configuredSecret = again.body.webhookSecret;
    }
    expectValidation(a);
    expect(a.text).not.toMatch(/[0-9a-f]{64}/);
    expectValidation(b);
    expectError(freshGet, 404, 'NOT_FOUND');
    expect(configuredGet.body).toEqual({ webhookUrl: configuredUrl, secretPrefix: `${configuredSecret.slice(0, 8)}...` });
  }

  async function keyWith(scopes: string[]): Promise<Client> {
    const res = await c.post('/api/v1/api-keys', { scopes });
    expect(res.status, res.text).toBe(201);
    return client(t.url, res.body.rawKey);
  }

  const t = useServerWithAccounts({ webhooks: { resolve: testResolver, denyDomains: ['blocked.example'] } });
  beforeAll(async () => {
    c = t.client;
    fresh = client(t.url, (await createTenant(t.dbPath, 'Fresh')).apiKey.rawKey);
    configured = client(t.url, (await createTenant(t.dbPath, 'Configured')).apiKey.rawKey);
    configuredUrl = 'https://hooks.public.test/configured';
    const res = await put(configured, { webhookUrl: configuredUrl });
    expect(res.status, res.text).toBe(200);
    configuredSecret = res.body.webhookSecret;
  });

  describe('PUT and GET', () => {
    it('GET before any PUT → 404 NOT_FOUND', async () => {
      const never = client(t.url, (await createTenant(t.dbPath, 'Never configured')).apiKey.rawKey);
      expectError(await never.get(PATH), 404, 'NOT_FOUND');
    });

    it('PUT → 200 with exactly {webhookUrl (as the URL parser writes it, here as sent), webhookSecret (64 lowercase hex)}', async () => {
      const url = 'https://8.8.8.8/hook';
      const res = await put(c, { webhookUrl: url });
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['webhookSecret', 'webhookUrl']);
      expect(res.body.webhookUrl).toBe(url);
      expect(res.body.webhookSecret).toMatch(HEX64);
    });

    it('GET after PUT → 200 with exactly {webhookUrl, secretPrefix = first 8 chars + "..."}, never the whole secret', async () => {
      const url = 'https://hooks.public.test/path/to/hook?x=1';
      const res = await put(c, { webhookUrl: url });
      expect(res.status, res.text).toBe(200);
      const got = await c.get(PATH);
      expect(got.status, got.text).toBe(200);
      expect(Object.keys(got.body).sort()).toEqual(['secretPrefix', 'webhookUrl']);
      expect(got.body.webhookUrl).toBe(url);
      expect(got.body.secretPrefix).toBe(`${res.body.webhookSecret.slice(0, 8)}...`);
      expect(got.text).not.toContain(res.body.webhookSecret);
      expect(got.text).not.toMatch(/[0-9a-f]{64}/);
    });

    it('every PUT issues a new secret, also for the same URL; GET follows the latest', async () => {
      const url = 'https://8.8.4.4/same';
      const secrets: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await put(c, { webhookUrl: url });
        expect(res.status, res.text).toBe(200);
        expect(res.body.webhookSecret).toMatch(HEX64);
        secrets.push(res.body.webhookSecret);
        const got = await c.get(PATH);
        expect(got.body).toEqual({ webhookUrl: url, secretPrefix: `${res.body.webhookSecret.slice(0, 8)}...` });
      }
      expect(new Set(secrets).size).toBe(4);
    });

    it('a public IPv4 literal, a public IPv6 literal and public names (via the test resolver) are accepted, kept as the URL parser writes them', async () => {
      for (const url of [
        'https://8.8.8.8/hook',
        'https://1.1.1.1:8443/hook',
        'https://[2606:4700:4700::1111]/hook',
        'https://hooks.public.test/hook',
        'https://hooks6.public.test/v1/events',
        // a trailing dot, and IPv6 forms whose IPv4 address is public
        'https://hooks.public.test./hook',
        'https://[::ffff:8.8.8.8]/hook',
        'https://[2002:808:808::1]/hook',
      ]) {
        const res = await put(c, { webhookUrl: url });
        expect(res.status, `${url}: ${res.text}`).toBe(200);
        // [::ffff:8.8.8.8] is written [::ffff:808:808]; the others as sent.
        expect(res.body.webhookUrl).toBe(new URL(url).href);
        expect((await c.get(PATH)).body.webhookUrl).toBe(new URL(url).href);
      }
    });

    it('the public name was looked up through the resolver', async () => {
      const from = resolverCalls.length;
      const res = await put(c, { webhookUrl: 'https://hooks.public.test/looked-up' });
      expect(res.status, res.text).toBe(200);
      expect(resolverCalls.slice(from).some((h) => h.replace(/\.$/, '').toLowerCase() === 'hooks.public.test')).toBe(true);
    });

    it('a name that does not resolve at PUT time (resolver throws) is accepted', async () => {
      const url = `https://no-such-name-${randomUUID().slice(0, 8)}.test/hook`;
      const res = await put(c, { webhookUrl: url });
      expect(res.status, res.text).toBe(200);
      expect(res.body.webhookSecret).toMatch(HEX64);
      expect((await c.get(PATH)).body.webhookUrl).toBe(url);
    });

    it('configuration is per tenant: another tenant still gets 404, and its PUT does not touch ours', async () => {
      const other = client(t.url, (await createTenant(t.dbPath, 'Isolated')).apiKey.rawKey);
      expectError(await other.get(PATH), 404, 'NOT_FOUND');
      const mine = await put(c, { webhookUrl: 'https://8.8.8.8/mine' });
      expect(mine.status).toBe(200);
      const theirs = await put(other, { webhookUrl: 'https://8.8.8.8/theirs' });
      expect(theirs.status).toBe(200);
      expect(theirs.body.webhookSecret).not.toBe(mine.body.webhookSecret);
      expect((await c.get(PATH)).body).toEqual({ webhookUrl: 'https://8.8.8.8/mine', secretPrefix: `${mine.body.webhookSecret.slice(0, 8)}...` });
      expect((await other.get(PATH)).body.webhookUrl).toBe('https://8.8.8.8/theirs');
    });

    it('PUT is recorded in the audit log as UPDATE_WEBHOOK with webhookUrl and secretPrefix, never the secret', async () => {
      const url = 'https://8.8.8.8/audited';
      const res = await put(c, { webhookUrl: url });
      expect(res.status, res.text).toBe(200);
      const exp = await c.get(`/api/v1/compliance/audit-export?from=${encodeURIComponent(FROM_ALL)}&to=${encodeURIComponent(TO_ALL)}`);
      expect(exp.status, exp.text).toBe(200);
      expect(exp.text).not.toContain(res.body.webhookSecret);
      const records = exp.text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const mine = records.filter((r) => r.action === 'UPDATE_WEBHOOK' && r.payload?.webhookUrl === url);
      expect(mine).toHaveLength(1);
      expect(mine[0].payload.secretPrefix).toBe(`${res.body.webhookSecret.slice(0, 8)}...`);
      expect(JSON.stringify(mine[0])).not.toContain(res.body.webhookSecret);
    });
  });

  describe('authentication and scopes', () => {
    it('no key, a malformed key and an unknown key → 401 on GET and PUT', async () => {
      for (const k of [client(t.url), client(t.url, 'not-a-key'), client(t.url, `sk_live_${randomUUID().replaceAll('-', '')}`)]) {
        expectError(await k.get(PATH), 401, 'UNAUTHENTICATED');
        expectError(await put(k, { webhookUrl: 'https://8.8.8.8/x' }), 401, 'UNAUTHENTICATED');
      }
      expect((await configured.get(PATH)).body.webhookUrl).toBe(configuredUrl);
    });

    it('a key without WEBHOOK_MANAGE → 403 FORBIDDEN on GET and PUT, nothing changes', async () => {
      expect((await put(c, { webhookUrl: 'https://8.8.8.8/before-forbidden' })).status).toBe(200);
      const before = (await c.get(PATH)).body;
      expect(before.webhookUrl).toBe('https://8.8.8.8/before-forbidden');
      for (const scopes of [['ACCOUNTS_READ'], ['TRANSACTIONS_WRITE', 'TRANSACTIONS_READ', 'ACCOUNTS_WRITE', 'RECONCILIATION_WRITE']]) {
        const k = await keyWith(scopes);
        expectError(await k.get(PATH), 403, 'FORBIDDEN');
        expectError(await put(k, { webhookUrl: 'https://8.8.8.8/forbidden' }), 403, 'FORBIDDEN');
      }
      expect((await c.get(PATH)).body).toEqual(before);
    });

    it('a key with only WEBHOOK_MANAGE may GET and PUT', async () => {
      const k = await keyWith(['WEBHOOK_MANAGE']);
      const res = await put(k, { webhookUrl: 'https://8.8.8.8/managed' });
      expect(res.status, res.text).toBe(200);
      const got = await k.get(PATH);
      expect(got.status, got.text).toBe(200);
      expect(got.body.webhookUrl).toBe('https://8.8.8.8/managed');
    });
  });

  describe('body validation → 400 VALIDATION_FAILED, nothing stored', () => {
    const BAD_BODIES: Array<[string, unknown]> = [
      ['missing webhookUrl', {}],
      ['empty webhookUrl', { webhookUrl: '' }],
      ['null webhookUrl', { webhookUrl: null }],
      ['number webhookUrl', { webhookUrl: 123 }],
      ['boolean webhookUrl', { webhookUrl: true }],
      ['array webhookUrl', { webhookUrl: ['https://8.8.8.8/hook'] }],
      ['object webhookUrl', { webhookUrl: { href: 'https://8.8.8.8/hook' } }],
      ['unknown field', { webhookUrl: 'https://8.8.8.8/hook', webhookSecret: 'a'.repeat(64) }],
      ['unknown field only', { url: 'https://8.8.8.8/hook' }],
      ['not a URL', { webhookUrl: 'not a url' }],
      ['no scheme', { webhookUrl: '8.8.8.8/hook' }],
      ['scheme only', { webhookUrl: 'https://' }],
      ['http', { webhookUrl: 'http://8.8.8.8/hook' }],
      ['HTTP upper case', { webhookUrl: 'HTTP://8.8.8.8/hook' }],
      ['ftp', { webhookUrl: 'ftp://8.8.8.8/hook' }],
      ['wss', { webhookUrl: 'wss://8.8.8.8/hook' }],
      ['javascript', { webhookUrl: 'javascript:alert(1)' }],
      ['user and password', { webhookUrl: 'https://user:pw@8.8.8.8/hook' }],
      ['user only', { webhookUrl: 'https://user@8.8.8.8/hook' }],
      ['user-info on a public name', { webhookUrl: 'https://user:pw@hooks.public.test/hook' }],
    ];

    it.each(BAD_BODIES)('%s', async (_name, body) => {
      await expectRefusedAndNothingStored(body);
    });

    it('a body that is not a JSON object → 400, nothing stored', async () => {
      for (const raw of ['null', '[]', '"https://8.8.8.8/hook"', '{"webhookUrl":', '']) {
        const res = await putRaw(fresh, raw);
        expectValidation({ ...res, text: `${JSON.stringify(raw)}: ${res.text}` });
      }
      expectError(await fresh.get(PATH), 404, 'NOT_FOUND');
    });
  });

  describe(`forbidden destinations (${FORBIDDEN.length} spellings) → 400 VALIDATION_FAILED, nothing stored`, () => {
    it.each(FORBIDDEN)('%s: %s', async (_name, url) => {
      await expectRefusedAndNothingStored({ webhookUrl: url });
    });
  });

  describe(`control characters and user-info (${NEVER.length} spellings) → 400 VALIDATION_FAILED at webhookUrl, nothing stored`, () => {
    it.each(NEVER)('%s', async (_name, url, message) => {
      await expectRefusedAndNothingStored({ webhookUrl: url });
      const res = await put(fresh, { webhookUrl: url });
      expectValidation(res, { detail: { path: 'webhookUrl', message } });
      // Never echoed back: the refusal names the character by its code, not as itself.
      expect(res.text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]|\\u00[01]|\\[rnt]/);
    });

    it('percent-encoded, the same bytes are an ordinary path and query: accepted and kept as written (the URL parser leaves them)', async () => {
      const url = 'https://hooks.public.test/a%0D%0Ab?x=%09%7F';
      const res = await put(c, { webhookUrl: url });
      expect(res.status, res.text).toBe(200);
      expect((await c.get(PATH)).body.webhookUrl).toBe(url);
    });

    it('an @ in the path or query is no user-info', async () => {
      const url = 'https://hooks.public.test/@team/hook?to=ops@example.com';
      const res = await put(c, { webhookUrl: url });
      expect(res.status, res.text).toBe(200);
      expect(res.body.webhookUrl).toBe(url);
    });

    it('a single-label name is refused by name, before any lookup', async () => {
      const calls = resolverCalls.length;
      expectValidation(await put(c, { webhookUrl: 'https://intranet/x' }), { detail: { path: 'webhookUrl', message: /the host intranet is a single-label name/ } });
      expect(resolverCalls.slice(calls)).toEqual([]);
    });
  });
});

describe('webhook configuration (server with allowPrivate)', () => {
  let c: Client;
  const t = useServerWithAccounts({ webhooks: { allowPrivate: true, resolve: testResolver } });
  beforeAll(() => {
    c = t.client;
  });

  it('loopback, private addresses and local names are accepted over https', async () => {
    for (const url of [
      'https://127.0.0.1:9/hook',
      'https://[::1]:9/hook',
      'https://10.0.0.1/hook',
      'https://192.168.1.1/hook',
      'https://localhost:9/hook',
      'https://loop.test/hook',
      'https://printer.local/hook',
    ]) {
      const res = await put(c, { webhookUrl: url });
      expect(res.status, `${url}: ${res.text}`).toBe(200);
      expect(res.body.webhookUrl).toBe(url);
      expect(res.body.webhookSecret).toMatch(HEX64);
      expect((await c.get(PATH)).body.webhookUrl).toBe(url);
    }
  });

  it('a single-label name is accepted (the operator allowed the local network)', async () => {
    for (const url of ['https://intranet/x', 'https://intranet:8443/x']) {
      const res = await put(c, { webhookUrl: url });
      expect(res.status, `${url}: ${res.text}`).toBe(200);
      expect((await c.get(PATH)).body.webhookUrl).toBe(url);
    }
  });

  it('control characters and user-info, even empty, are still refused; nothing stored', async () => {
    const ok = await put(c, { webhookUrl: 'https://127.0.0.1:9/kept-too' });
    expect(ok.status, ok.text).toBe(200);
    for (const [name, url, message] of NEVER) {
      const res = await put(c, { webhookUrl: url });
      expect(res.status, name).toBe(400);
      expectValidation(res, { detail: { path: 'webhookUrl', message } });
    }
    for (const url of ['https://localhost:9/a\r\nb', 'https://@localhost:9/hook', 'https://@intranet/x']) expectValidation(await put(c, { webhookUrl: url }));
    expect((await c.get(PATH)).body.webhookUrl).toBe('https://127.0.0.1:9/kept-too');
  });

  it('http is still refused, so is user-info; nothing stored', async () => {
    const ok = await put(c, { webhookUrl: 'https://127.0.0.1:9/kept' });
    expect(ok.status, ok.text).toBe(200);
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost/hook', 'http://10.0.0.1/hook', 'https://user:pw@127.0.0.1:9/hook', 'https://user@localhost/hook']) {
      expectValidation(await put(c, { webhookUrl: url }));
    }
    expect((await c.get(PATH)).body).toEqual({ webhookUrl: 'https://127.0.0.1:9/kept', secretPrefix: `${ok.body.webhookSecret.slice(0, 8)}...` });
  });

  it('missing, empty and non-string URLs are still 400', async () => {
    for (const body of [{}, { webhookUrl: '' }, { webhookUrl: 1 }, { webhookUrl: 'nope' }, { webhookUrl: 'https://127.0.0.1/h', extra: 1 }]) {
      expectValidation(await put(c, body));
    }
  });
});
