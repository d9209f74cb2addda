import { collect } from '../helpers/rows.js';
// The Ledger facade (src/core/ledger.ts): every door it opens reaches its use-case with the ledger's dependencies.
import { describe, expect, it } from 'vitest';
import { account, fiatLine, openLedger, postLines } from './ledger-harness.js';

describe('Ledger', () => {
  it('each method answers what its use-case answers', async () => {
    const h = await openLedger();
    try {
      const a = await account(h);
      const b = await account(h, { type: 'LIABILITY' });
      await postLines(h, [fiatLine(a, 'DEBIT', '1'), fiatLine(b, 'CREDIT', '1')]);
      const now = h.clock.now().getTime();
      expect((await h.ledger.tenants.require(h.tenantId)).name).toBe('Acme');
      expect(await h.ledger.tenants.authenticate(h.adminKey.rawKey)).toMatchObject({ tenantId: h.tenantId, keyId: h.adminKey.id });
      expect((await h.ledger.tenants.listApiKeys(h.tenantId)).map((k) => k.id)).toEqual([h.adminKey.id]);
      expect((await h.ledger.accounts.get(h.tenantId, a)).id).toBe(a);
      expect((await h.ledger.accounts.list(h.tenantId, {})).items).toHaveLength(2);
      expect((await h.ledger.entries.balance(h.tenantId, a, undefined)).amount.text).toBe('1');
      expect((await h.ledger.entries.list(h.tenantId, a, {})).accountId).toBe(a);
      expect((await h.ledger.entries.statement(h.tenantId, a, 0, now)).closingBalance.text).toBe('1');
      expect((await h.ledger.reconciliation.listResults(h.tenantId, {})).items).toEqual([]);
      expect([...(await collect(h.ledger.audit.export(h.tenantId, { from: 0, to: now + 1 })))].join('')).toContain('"action":"POST_TRANSACTION"');
      expect(await h.ledger.audit.verifyChain(h.tenantId)).toEqual({ ok: true, count: 5 });
      expect(await h.ledger.tenants.revokeApiKey(h.tenantId, h.adminKey.id, h.actor)).toBeUndefined();
      expect((await h.ledger.tenants.listApiKeys(h.tenantId))[0]!.revokedAt).not.toBeNull();
    } finally {
      await h.close();
    }
  });
});
