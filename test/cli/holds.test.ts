// `ledger holds list|capture|void` (issue 19): an operator lists, captures and voids holds on the database.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, fiat, useServerWithAccounts, type Client } from '../helpers/server.js';

describe('ledger holds', () => {
  let c: Client;
  let a: string;
  let b: string;
  const holds = (...args: string[]) => cli(['--db', t.dbPath, 'holds', ...args, '--tenant', t.tenant.tenantId]);
  const newHold = async (amount: string) =>
    (await c.post('/api/v1/holds', { lines: [fiat(a, 'DEBIT', amount), fiat(b, 'CREDIT', amount)] }, { 'idempotency-key': randomUUID() })).body.holdId as string;

  const t = useServerWithAccounts({ accounts: { a: 'ASSET', b: 'LIABILITY' } });
  beforeAll(() => {
    ({ client: c, accounts: { a, b } } = t);
  });

  it('captures a part, voids, and lists as the HTTP endpoints do; a hold no longer PENDING exits 1', async () => {
    const first = await newHold('10.00');
    const second = await newHold('5.00');
    const captured = await holds('capture', first, '--amount', '4.00', '--json');
    expect(captured.code, captured.stderr).toBe(0);
    expect(JSON.parse(captured.stdout)).toMatchObject({ holdId: first, status: 'CAPTURED', capturedAmount: 4 });
    expect((await c.get(`/api/v1/holds/${first}`)).body).toEqual(JSON.parse(captured.stdout));
    const voided = await holds('void', second);
    expect(voided.code, voided.stderr).toBe(0);
    expect(voided.stdout).toMatch(/VOIDED/);
    const again = await holds('void', second);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no longer PENDING/);
    const listed = await holds('list', '--status', 'VOIDED', '--json');
    expect(JSON.parse(listed.stdout).items.map((h: any) => h.holdId)).toEqual([second]);
    expect((await holds('list', '--status', 'nope')).code).toBe(2);
  });
});
