// Bank statements across processes (issue 43): two `ledger serve` on one PostgreSQL database. One file imported through
// both at once makes one statement (the unique key of account and externalId is the last guard), and two reconciles of
// one statement at once through both match each entry once (the match table's key is the entry).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { tenantOver, type HttpTenant } from '../helpers/tenant.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';

const LINES = 60;

describe('bank statements raced across two servers on one PostgreSQL database', () => {
  let servers: Array<Spawned & { url: string }>;
  let acme: HttpTenant;
  let bank: string;
  let revenue: string;
  const day = new Date().toISOString().slice(0, 10);

  const importCsv = (server: number, csv: string) =>
    fetch(`${servers[server]!.url}/api/v1/accounts/${bank}/bank-statements`, { method: 'POST', headers: { ...acme.headers, 'content-type': 'text/csv' }, body: csv });
  const get = async (server: number, path: string) => {
    const res = await fetch(`${servers[server]!.url}${path}`, { headers: acme.headers });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Record<string, any>;
  };

  beforeAll(async () => {
    const db = await freshDatabaseUrl();
    acme = await tenantOver(db);
    servers = await Promise.all([0, 1].map(() => spawnServe(db)));
    bank = await acme.account(servers[0]!.url, 'bank');
    revenue = await acme.account(servers[1]!.url, 'revenue', 'REVENUE');
  });
  afterAll(() => killAll());

  it('one file imported through both at once: one statement, 201 once; the other answers it (200) or is told to wait (409), never a 5xx', async () => {
    const csv = `bookingDate,amount,reference,lineId\n${Array.from({ length: LINES }, (_, i) => `${day},${i + 1}.01,ONCE-${i},L-${i}`).join('\n')}\n`;
    const answers = await Promise.all([0, 1, 0, 1].map((s) => importCsv(s, csv)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201), JSON.stringify(statuses)).toHaveLength(1);
    expect(statuses.every((s) => s === 200 || s === 201 || s === 409), JSON.stringify(statuses)).toBe(true);
    // Once the race is over, both servers answer the one statement.
    const again = await importCsv(1, csv);
    expect(again.status).toBe(200);
    const listed = await get(0, `/api/v1/bank-statements?accountId=${bank}`);
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0].lineCount).toBe(LINES);
  });

  it('two reconciles of one statement through both at once match each entry once', async () => {
    // A statement whose lines find no entry yet: then the entries are posted, and both servers reconcile at once.
    const amounts = Array.from({ length: LINES }, (_, i) => `${i + 100}.37`);
    const csv = `bookingDate,amount,reference\n${amounts.map((a, i) => `${day},${a},RACE-${i}`).join('\n')}\n`;
    const imported = await importCsv(0, csv);
    expect(imported.status).toBe(201);
    const { statementId } = (await imported.json()) as { statementId: string };
    for (const [i, amount] of amounts.entries()) {
      // Each amount twice under the line's reference: the REFERENCE rule takes one, the other stays free.
      for (const server of [0, 1]) {
        const res = await fetch(`${servers[server]!.url}/api/v1/transactions`, {
          method: 'POST',
          headers: { ...acme.headers, 'idempotency-key': randomUUID() },
          body: JSON.stringify({
            lines: [
              { accountId: bank, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount, currency: 'USD', rail: 'WIRE', bankReference: `RACE-${i}` } },
              { accountId: revenue, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount, currency: 'USD', rail: 'WIRE' } },
            ],
          }),
        });
        expect(res.status).toBe(201);
      }
    }
    const reconciles = await Promise.all([0, 1, 0, 1].map((s) => fetch(`${servers[s]!.url}/api/v1/bank-statements/${statementId}/reconcile`, { method: 'POST', headers: acme.headers })));
    expect(reconciles.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const lines: Array<{ status: string; matchedEntryIds: string[] }> = [];
    let cursor: string | null = null;
    do {
      const page = await get(1, `/api/v1/bank-statements/${statementId}/lines?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      lines.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(lines.every((l) => l.status === 'MATCHED' && l.matchedEntryIds.length === 1)).toBe(true);
    const matched = lines.flatMap((l) => l.matchedEntryIds);
    expect(new Set(matched).size).toBe(LINES);
    const statement = await get(0, `/api/v1/bank-statements/${statementId}`);
    expect(statement.summary).toMatchObject({ matched: LINES, unmatched: 0 });
    // One entry of each amount is left, unreconciled.
    const unreconciled = await get(1, `/api/v1/accounts/${bank}/unreconciled-entries?limit=200`);
    expect(unreconciled.items.filter((e: any) => e.type === 'DEBIT' && !matched.includes(e.entryId)).length).toBeGreaterThanOrEqual(LINES);
  });
});
