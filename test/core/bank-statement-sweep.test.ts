// An import that stopped midway (its server gone before the last part committed) leaves a statement no list shows,
// whose lines still hold their entries. Once its lease is over the sweeper (src/workers/sweepers.ts, through
// BankStatementService.removeUnfinished) removes it in parts: the entries are free again, for the unreconciled
// entries and for the next import, which matches them. In process, on a temporary SQLite file, with a clock the test moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { account, fiatLine, newKey, openLedger, type Harness } from './ledger-harness.js';
import { BANK_STATEMENT_LEASE_MS } from '../../src/core/limits.js';
import { checkLedger } from '../../src/store/tools/check.js';

describe('bank statements an import left unfinished', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openLedger();
  });
  afterAll(async () => h?.close());

  it('are removed by the sweep once the lease is over, and free their entries', async () => {
    const bank = await account(h, { type: 'ASSET', name: 'bank' });
    const revenue = await account(h, { type: 'REVENUE', name: 'revenue' });
    for (const reference of ['INV-1', 'INV-2']) {
      await h.ledger.transactions.post(h.tenantId, h.actor, newKey(), {
        lines: [fiatLine(bank, 'DEBIT', '25.00', 'USD', { monetaryEntry: { type: 'FIAT', amount: '25.00', currency: 'USD', rail: 'ACH', bankReference: reference } }), fiatLine(revenue, 'CREDIT', '25.00')],
      });
    }
    const day = h.clock.now().toISOString().slice(0, 10);
    const file = { format: 'CSV' as const, bytes: Buffer.from(`bookingDate,amount,reference\n${day},25.00,INV-1\n${day},25.00,INV-2\n`) };
    const unreconciled = async () => JSON.parse((await h.ledger.bankStatements.unreconciled(h.tenantId, bank, {})).items.text) as unknown[];
    expect(await unreconciled()).toHaveLength(2);

    // The server stops after the lines were written and matched, before the import's end commits.
    const run = h.writer.run.bind(h.writer);
    h.writer.run = ((name: Parameters<typeof run>[0], args: never) => (name === 'finishStatementImport' ? Promise.reject(new Error('the server stopped')) : run(name, args))) as typeof run;
    try {
      await expect(h.ledger.bankStatements.import(h.tenantId, h.actor, bank, file, {})).rejects.toThrow('the server stopped');
    } finally {
      h.writer.run = run;
    }
    // Nothing of it shows, but its lines hold both entries.
    expect((await h.ledger.bankStatements.list(h.tenantId, { accountId: bank })).items).toEqual([]);
    expect(await unreconciled()).toEqual([]);

    // While its lease runs it is an import under way: the sweep leaves it.
    expect(await h.ledger.bankStatements.removeUnfinished(100)).toBe(0);
    h.clock.advance(BANK_STATEMENT_LEASE_MS + 1);
    expect(await h.ledger.bankStatements.removeUnfinished(100)).toBe(1);
    expect(await h.ledger.bankStatements.removeUnfinished(100)).toBe(0);
    expect(await unreconciled()).toHaveLength(2);

    // The same file imported again is a new import, which matches both.
    const again = await h.ledger.bankStatements.import(h.tenantId, h.actor, bank, file, {});
    expect(again.status).toBe(201);
    expect(JSON.parse(again.body)).toMatchObject({ lineCount: 2, summary: { matched: 2, unmatched: 0 } });
    expect(await unreconciled()).toEqual([]);

    const report = await checkLedger(join(h.dir, 'ledger.db'));
    expect(report.results.filter((r) => r.kind.startsWith('bank ')).map((r) => [r.kind, r.checked, r.problems])).toEqual([
      ['bank statements', 1, 0],
      ['bank statement lines', 2, 0],
      ['bank matches', 2, 0],
      ['bank line matches', 2, 0],
    ]);
  });
});
