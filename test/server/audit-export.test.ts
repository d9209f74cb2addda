// GET /api/v1/compliance/audit-export — black-box, per spec, contract and the issue-3 decisions (Audit export).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, onchain, post, scopesExcept, useServerWithAccounts, type Client, type HttpResult } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS } from '../helpers/expect.js';
import { AUDIT_EXPORT_PATH as PATH, parseNdjson, recomputeHash, type AuditRecord } from '../helpers/audit.js';

const FROM_ALL = '2000-01-01T00:00:00.000Z';
const TO_ALL = '2100-01-01T00:00:00.000Z';
const FIELDS = ['action', 'actorKeyId', 'hash', 'id', 'occurredAt', 'payload', 'prevHash', 'type'];
const WALLET = '0x0000000000000000000000000000000000000001';
const ALL_BUT_EXPORT = scopesExcept('COMPLIANCE_EXPORT', 'ADMIN');

function exportRes(c: Client, query: Record<string, string | undefined>): Promise<HttpResult> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
  const qs = params.toString();
  return c.get(`${PATH}${qs ? `?${qs}` : ''}`);
}

async function fullExport(c: Client, extra: Record<string, string> = {}): Promise<{ text: string; records: AuditRecord[] }> {
  const res = await exportRes(c, { from: FROM_ALL, to: TO_ALL, ...extra });
  expect(res.status, res.text).toBe(200);
  return { text: res.text, records: parseNdjson(res.text) };
}

const ms = (iso: string) => Date.parse(iso);

describe('GET /api/v1/compliance/audit-export', () => {
  let c: Client;
  let noExport: Client;
  let exportOnly: Client;
  let other: Client;
  const made = {
    noExportKeyId: '',
    exportOnlyKeyId: '',
    revokedKeyId: '',
    revokeStatus: 0,
    rawKeys: [] as string[],
    accountA: '',
    accountB: '',
    fiatTx: '',
    cancelled: { status: 0, text: '', settlementId: '' },
    cancel: { status: 0, text: '' },
    matched: { status: 0, text: '', settlementId: '' },
    matchTx: { status: 0, text: '', transactionId: '' },
    matchedState: { status: 0, text: '', settlementStatus: '' },
    batch: { status: 0, text: '' },
  };

  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    made.rawKeys.push(t.tenant.apiKey.rawKey);

    const key = async (scopes: string[]) => {
      const res = await c.post('/api/v1/api-keys', { scopes });
      if (res.status !== 201) throw new Error(`key create failed: ${res.status} ${res.text}`);
      made.rawKeys.push(res.body.rawKey);
      return res.body as { id: string; rawKey: string };
    };
    const k1 = await key(ALL_BUT_EXPORT);
    made.noExportKeyId = k1.id;
    noExport = client(t.url, k1.rawKey);
    const k2 = await key(['COMPLIANCE_EXPORT']);
    made.exportOnlyKeyId = k2.id;
    exportOnly = client(t.url, k2.rawKey);
    const k3 = await key(['ACCOUNTS_READ']);
    made.revokedKeyId = k3.id;
    made.revokeStatus = (await c.del(`/api/v1/api-keys/${k3.id}`)).status;

    made.accountA = await makeAccount(c, { name: 'receiving', currency: 'USD', type: 'ASSET' });
    made.accountB = await makeAccount(c, { name: 'counter', currency: 'USD', type: 'LIABILITY' });
    const fiatRes = await post(c, [fiat(made.accountA, 'DEBIT', '10.00'), fiat(made.accountB, 'CREDIT', '10.00')]);
    if (fiatRes.status !== 201) throw new Error(`posting failed: ${fiatRes.status} ${fiatRes.text}`);
    made.fiatTx = fiatRes.body.transactionId;

    const register = () =>
      c.post(
        '/api/v1/settlements',
        { accountId: made.accountA, expectedToken: 'USDC', expectedAmount: '5', expectedWalletAddress: WALLET, expectedChainId: 'EVM' },
        { 'idempotency-key': `audit-settle-${randomUUID()}` },
      );
    // A settlement registered then cancelled.
    const s1 = await register();
    made.cancelled = { status: s1.status, text: s1.text, settlementId: s1.body?.settlementId ?? '' };
    if (made.cancelled.settlementId) {
      const del = await c.del(`/api/v1/settlements/${made.cancelled.settlementId}`);
      made.cancel = { status: del.status, text: del.text };
    }
    // A settlement registered then matched by a posting.
    const s2 = await register();
    made.matched = { status: s2.status, text: s2.text, settlementId: s2.body?.settlementId ?? '' };
    const m = await post(c, [onchain(made.accountA, 'DEBIT', '5', 'USDC', { chainId: 'EVM', walletAddress: WALLET }), onchain(made.accountB, 'CREDIT', '5', 'USDC')]);
    made.matchTx = { status: m.status, text: m.text, transactionId: m.body?.transactionId ?? '' };
    if (made.matched.settlementId) {
      const got = await c.get(`/api/v1/settlements/${made.matched.settlementId}`);
      made.matchedState = { status: got.status, text: got.text, settlementStatus: got.body?.status ?? '' };
    }
    const ids = [made.fiatTx, ...(made.matchTx.transactionId ? [made.matchTx.transactionId] : [])];
    const b = await c.post('/api/v1/reconciliation/batch', { transactionIds: ids });
    made.batch = { status: b.status, text: b.text };

    const otherTenant = await createTenant(t.dbPath, 'Other');
    other = client(t.url, otherTenant.apiKey.rawKey);
    await makeAccount(other, { name: 'theirs', currency: 'USD', type: 'ASSET' });
  });

  describe('query validation', () => {
    it('from missing → 400', async () => {
      expectValidation(await exportRes(c, { to: TO_ALL }));
    });
    it('to missing → 400', async () => {
      expectValidation(await exportRes(c, { from: FROM_ALL }));
    });
    it('both missing → 400', async () => {
      expectValidation(await exportRes(c, {}));
    });
    it('from equal to to → 400 (to is exclusive, the range would be empty by construction)', async () => {
      expectValidation(await exportRes(c, { from: '2026-01-01T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' }));
    });
    it('from after to → 400', async () => {
      expectValidation(await exportRes(c, { from: '2026-02-01T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' }));
    });
    it.each([
      ['from not a date', { from: 'yesterday', to: TO_ALL }],
      ['to not a date', { from: FROM_ALL, to: 'tomorrow' }],
      ['from an impossible date', { from: '2026-13-45T00:00:00Z', to: TO_ALL }],
      ['from empty', { from: '', to: TO_ALL }],
      ['to empty', { from: FROM_ALL, to: '' }],
    ])('%s → 400', async (_what, query) => {
      expectValidation(await exportRes(c, query));
    });
    it.each(['ROBOT', 'EVERYONE', 'BOTH'])('type=%j → 400', async (type) => {
      expectValidation(await exportRes(c, { from: FROM_ALL, to: TO_ALL, type }));
    });
  });

  describe('authentication and scope', () => {
    it('no Authorization header → 401', async () => {
      expectError(await exportRes(client(t.url), { from: FROM_ALL, to: TO_ALL }), 401, 'UNAUTHENTICATED');
    });
    it('an unknown key → 401', async () => {
      expectError(await exportRes(client(t.url, `sk_live_${randomUUID().replaceAll('-', '')}`), { from: FROM_ALL, to: TO_ALL }), 401, 'UNAUTHENTICATED');
    });
    it('a key with every scope except COMPLIANCE_EXPORT (and ADMIN) → 403', async () => {
      expectError(await exportRes(noExport, { from: FROM_ALL, to: TO_ALL }), 403, 'FORBIDDEN');
    });
    it('a key with only COMPLIANCE_EXPORT → 200, the same export as the ADMIN key', async () => {
      const admin = await fullExport(c);
      const res = await exportRes(exportOnly, { from: FROM_ALL, to: TO_ALL });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe(admin.text);
    });
  });

  describe('NDJSON format', () => {
    it('answers 200 with content-type application/x-ndjson', async () => {
      const res = await exportRes(c, { from: FROM_ALL, to: TO_ALL });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type') ?? '').toMatch(/^application\/x-ndjson/);
    });

    it('one JSON object per line, the body ends with a newline, each record has exactly the documented fields', async () => {
      const { text, records } = await fullExport(c);
      expect(text.endsWith('\n')).toBe(true);
      expect(records.length).toBeGreaterThanOrEqual(10);
      for (const r of records) {
        expect(Object.keys(r).sort(), JSON.stringify(r)).toEqual(FIELDS);
        expect(typeof r.id).toBe('string');
        expect(r.id.length).toBeGreaterThan(0);
        expect(typeof r.action).toBe('string');
        expect(typeof r.actorKeyId).toBe('string');
        expect(r.occurredAt).toMatch(ISO_MS);
        expect(r.payload !== null && typeof r.payload === 'object' && !Array.isArray(r.payload), JSON.stringify(r)).toBe(true);
        expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
        if (r.prevHash !== null) expect(r.prevHash).toMatch(/^[0-9a-f]{64}$/);
      }
      expect(new Set(records.map((r) => r.id)).size, 'ids are unique').toBe(records.length);
    });

    it('an empty range answers 200 with an empty body', async () => {
      const res = await exportRes(c, { from: '1990-01-01T00:00:00.000Z', to: '1991-01-01T00:00:00.000Z' });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('');
    });

    it('oldest first: occurredAt never decreases along the export', async () => {
      const { records } = await fullExport(c);
      for (let i = 1; i < records.length; i++) {
        expect(ms(records[i]!.occurredAt), `${records[i - 1]!.occurredAt} then ${records[i]!.occurredAt}`).toBeGreaterThanOrEqual(ms(records[i - 1]!.occurredAt));
      }
    });

    it('no line carries a raw API key', async () => {
      const { text } = await fullExport(c);
      // A visible prefix (sk_live_ and 4 characters, as in key listings) is no secret; anything longer is.
      expect(text).not.toMatch(/sk_live_[0-9a-f]{5,}/);
      for (const raw of made.rawKeys) expect(text).not.toContain(raw.slice(8));
    });
  });

  describe('hash chain', () => {
    it("the tenant's first record is CREATE_TENANT by the CLI with prevHash null", async () => {
      const { records } = await fullExport(c);
      expect(records[0]).toMatchObject({ action: 'CREATE_TENANT', prevHash: null, actorKeyId: 'cli', type: 'HUMAN' });
    });

    it("each record's prevHash is the previous record's hash", async () => {
      const { records } = await fullExport(c);
      for (let i = 1; i < records.length; i++) {
        expect(records[i]!.prevHash, `record ${i} (${records[i]!.action} ${records[i]!.id})`).toBe(records[i - 1]!.hash);
      }
    });

    it('each hash is sha256 hex of the canonical JSON of {id,type,action,actorKeyId,occurredAt,payload,prevHash}', async () => {
      const { records } = await fullExport(c);
      for (const r of records) expect(r.hash, `${r.action} ${r.id}`).toBe(recomputeHash(r));
    });

    it('a record in the middle of a range keeps its real prevHash (the chain is not restarted per export)', async () => {
      const { records } = await fullExport(c);
      const mid = records[Math.floor(records.length / 2)]!;
      const res = await exportRes(c, { from: mid.occurredAt, to: TO_ALL });
      expect(res.status, res.text).toBe(200);
      const part = parseNdjson(res.text);
      expect(part.find((r) => r.id === mid.id)).toEqual(mid);
    });
  });

  describe('actions recorded for every state change', () => {
    const find = (records: AuditRecord[], action: string, field: string, value: string) => records.findIndex((r) => r.action === action && r.payload[field] === value);

    it('CREATE_API_KEY and REVOKE_API_KEY name the keyId', async () => {
      const { records } = await fullExport(c);
      expect(made.revokeStatus).toBe(204);
      const admin = t.tenant.apiKey.id;
      expect(find(records, 'CREATE_API_KEY', 'keyId', admin), 'the first ADMIN key').toBeGreaterThan(0);
      for (const keyId of [made.noExportKeyId, made.exportOnlyKeyId, made.revokedKeyId]) {
        const i = find(records, 'CREATE_API_KEY', 'keyId', keyId);
        expect(i, `CREATE_API_KEY ${keyId}`).toBeGreaterThan(0);
        expect(records[i]).toMatchObject({ type: 'HUMAN', actorKeyId: admin });
      }
      const revoke = find(records, 'REVOKE_API_KEY', 'keyId', made.revokedKeyId);
      expect(revoke).toBeGreaterThan(find(records, 'CREATE_API_KEY', 'keyId', made.revokedKeyId));
      expect(records[revoke]).toMatchObject({ type: 'HUMAN', actorKeyId: admin });
    });

    it('CREATE_ACCOUNT names the accountId; POST_TRANSACTION names the transactionId', async () => {
      const { records } = await fullExport(c);
      const a = find(records, 'CREATE_ACCOUNT', 'accountId', made.accountA);
      const b = find(records, 'CREATE_ACCOUNT', 'accountId', made.accountB);
      const p = find(records, 'POST_TRANSACTION', 'transactionId', made.fiatTx);
      expect(a).toBeGreaterThan(0);
      expect(b).toBeGreaterThan(a);
      expect(p).toBeGreaterThan(b);
      for (const i of [a, b, p]) expect(records[i]).toMatchObject({ type: 'HUMAN', actorKeyId: t.tenant.apiKey.id });
    });

    it('REGISTER_SETTLEMENT and CANCEL_SETTLEMENT name the settlementId', async () => {
      expect(made.cancelled.status, made.cancelled.text).toBe(201);
      expect(made.cancel.status, made.cancel.text).toBe(200);
      const { records } = await fullExport(c);
      const id = made.cancelled.settlementId;
      const reg = find(records, 'REGISTER_SETTLEMENT', 'settlementId', id);
      const can = find(records, 'CANCEL_SETTLEMENT', 'settlementId', id);
      expect(reg, 'REGISTER_SETTLEMENT').toBeGreaterThan(0);
      expect(can, 'CANCEL_SETTLEMENT').toBeGreaterThan(reg);
      expect(find(records, 'REGISTER_SETTLEMENT', 'settlementId', made.matched.settlementId)).toBeGreaterThan(can);
      for (const i of [reg, can]) expect(records[i]).toMatchObject({ type: 'HUMAN', actorKeyId: t.tenant.apiKey.id });
    });

    it('SETTLEMENT_MATCHED names the settlementId when a posting matches a PENDING settlement', async () => {
      expect(made.matched.status, made.matched.text).toBe(201);
      expect(made.matchTx.status, made.matchTx.text).toBe(201);
      expect(made.matchedState.settlementStatus, made.matchedState.text).toBe('SETTLED');
      const { records } = await fullExport(c);
      const reg = find(records, 'REGISTER_SETTLEMENT', 'settlementId', made.matched.settlementId);
      const posted = find(records, 'POST_TRANSACTION', 'transactionId', made.matchTx.transactionId);
      const matched = find(records, 'SETTLEMENT_MATCHED', 'settlementId', made.matched.settlementId);
      expect(posted, 'POST_TRANSACTION of the matching posting').toBeGreaterThan(reg);
      expect(matched, 'SETTLEMENT_MATCHED').toBeGreaterThan(reg);
      expect(records[matched]!.type).toBe('HUMAN');
      // The cancelled settlement was never matched.
      expect(find(records, 'SETTLEMENT_MATCHED', 'settlementId', made.cancelled.settlementId)).toBe(-1);
    });

    it('RECONCILIATION_BATCH is recorded for a batch call', async () => {
      expect(made.batch.status, made.batch.text).toBe(200);
      const { records } = await fullExport(c);
      const i = records.findIndex((r) => r.action === 'RECONCILIATION_BATCH');
      expect(i, 'RECONCILIATION_BATCH').toBeGreaterThan(find(records, 'POST_TRANSACTION', 'transactionId', made.matchTx.transactionId));
      expect(records[i]).toMatchObject({ type: 'HUMAN', actorKeyId: t.tenant.apiKey.id });
    });

    it('every action is one of the documented ones, and every record so far is HUMAN', async () => {
      const { records } = await fullExport(c);
      const known = ['CREATE_TENANT', 'CREATE_API_KEY', 'REVOKE_API_KEY', 'CREATE_ACCOUNT', 'POST_TRANSACTION', 'REGISTER_SETTLEMENT', 'CANCEL_SETTLEMENT', 'SETTLEMENT_MATCHED', 'SETTLEMENT_UNMATCHED', 'RECONCILIATION_BATCH'];
      for (const r of records) {
        expect(known, r.action).toContain(r.action);
        expect(r.type).toBe('HUMAN');
      }
    });
  });

  describe('time bounds: from inclusive, to exclusive', () => {
    const idsIn = (records: AuditRecord[], from: string, to: string) => records.filter((r) => ms(r.occurredAt) >= ms(from) && ms(r.occurredAt) < ms(to)).map((r) => r.id);
    const idsOf = async (from: string, to: string) => {
      const res = await exportRes(c, { from, to });
      expect(res.status, res.text).toBe(200);
      return parseNdjson(res.text).map((r) => r.id);
    };

    it('from = T includes the records at T; to = T excludes them', async () => {
      const { records } = await fullExport(c);
      const mid = records[Math.floor(records.length / 2)]!;
      const T = mid.occurredAt;

      const after = await idsOf(T, TO_ALL);
      expect(after).toContain(mid.id);
      expect(after).toEqual(idsIn(records, T, TO_ALL));

      const before = await idsOf(FROM_ALL, T);
      expect(before).not.toContain(mid.id);
      expect(before).toEqual(idsIn(records, FROM_ALL, T));
      expect(before.length).toBeGreaterThan(0);

      const plusOne = new Date(ms(T) + 1).toISOString();
      const same = await idsOf(T, plusOne);
      expect(same).toContain(mid.id);
      expect(same).toEqual(idsIn(records, T, plusOne));
    });

    it('the first and the last record bound the range exactly', async () => {
      const { records } = await fullExport(c);
      const first = records[0]!;
      const last = records[records.length - 1]!;
      expect(await idsOf(first.occurredAt, new Date(ms(last.occurredAt) + 1).toISOString())).toEqual(records.map((r) => r.id));
      expect(await idsOf(FROM_ALL, first.occurredAt)).toEqual([]);
      expect(await idsOf(new Date(ms(last.occurredAt) + 1).toISOString(), TO_ALL)).toEqual([]);
    });
  });

  describe('type filter', () => {
    it('type=ALL equals the default', async () => {
      const all = await fullExport(c, { type: 'ALL' });
      expect(all.text).toBe((await fullExport(c)).text);
    });
    it('type=HUMAN returns every record (all are HUMAN so far)', async () => {
      const human = await fullExport(c, { type: 'HUMAN' });
      expect(human.records.length).toBeGreaterThan(0);
      expect(human.text).toBe((await fullExport(c)).text);
    });
    it('type=AGENT answers 200 with an empty body', async () => {
      const res = await exportRes(c, { from: FROM_ALL, to: TO_ALL, type: 'AGENT' });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('');
    });
  });

  describe('tenant isolation', () => {
    it("each tenant exports only its own records, with its own chain starting at CREATE_TENANT", async () => {
      const mine = (await fullExport(c)).records;
      const theirs = (await fullExport(other)).records;
      expect(theirs.length).toBeGreaterThanOrEqual(3); // CREATE_TENANT, CREATE_API_KEY, CREATE_ACCOUNT
      const mineIds = new Set(mine.map((r) => r.id));
      for (const r of theirs) expect(mineIds.has(r.id), r.id).toBe(false);
      const theirIds = new Set(theirs.map((r) => r.id));
      for (const r of mine) expect(theirIds.has(r.id), r.id).toBe(false);
      expect(theirs[0]).toMatchObject({ action: 'CREATE_TENANT', prevHash: null });
      for (let i = 1; i < theirs.length; i++) expect(theirs[i]!.prevHash).toBe(theirs[i - 1]!.hash);
      for (const r of theirs) expect(r.hash).toBe(recomputeHash(r));
      const theirText = (await fullExport(other)).text;
      for (const id of [t.tenant.tenantId, made.accountA, made.accountB, made.fiatTx, made.revokedKeyId]) expect(theirText).not.toContain(id);
    });
  });

  describe('ISO 8601 instants', () => {
    it('accepts a date-only from and a to with a +00:00 offset', async () => {
      const full = (await fullExport(c)).text;
      const res = await exportRes(c, { from: '2000-01-01', to: '2100-01-01T00:00:00+00:00' });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe(full);
    });
    it('accepts seconds without milliseconds and negative offsets, compared as instants', async () => {
      const full = (await fullExport(c)).text;
      const res = await exportRes(c, { from: '1999-12-31T21:00:00-03:00', to: '2099-12-31T21:00:00-03:00' });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe(full);
    });
    it('an offset instant bounds the same as its UTC form', async () => {
      const { records } = await fullExport(c);
      const mid = records[Math.floor(records.length / 2)]!;
      const T = new Date(ms(mid.occurredAt));
      // The same instant written at +02:00.
      const shifted = new Date(T.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      const utc = await exportRes(c, { from: mid.occurredAt, to: TO_ALL });
      const off = await exportRes(c, { from: shifted, to: TO_ALL });
      expect(off.status, off.text).toBe(200);
      expect(off.text).toBe(utc.text);
    });
  });
});
