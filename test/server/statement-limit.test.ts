// README, API decisions: "**Statements.** ... A statement lists at most 10,000 movements; a longer period is 400. Only
// FIAT lines in the account's currency are movements." and Limits: "| statement | 10,000 movements | 400 |". Shown
// over HTTP against the real server: ten postings of 1000 lines (the most a posting may have) all on one account make
// exactly 10,000 movements, answered 200 in full; on-chain lines after them change nothing; one FIAT line more makes
// the same period 400 VALIDATION_FAILED, while a period that leaves a posting out is still answered.
import { beforeAll, describe, expect, it } from 'vitest';
import { fiat, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectValidation } from '../helpers/expect.js';

const LINES_MAX = 1000; // README Limits: "lines per transaction | 2 to 1000"
const MOVEMENTS_MAX = 10_000;
const FAR_PAST = '2000-01-01T00:00:00.000Z';
const FAR_FUTURE = '2999-01-01T00:00:00.000Z';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a statement lists at most 10,000 movements', () => {
  let c: Client;
  let a: string; // every movement is on this account
  let b: string;
  const at: string[] = []; // createdAt of each posting, in order

  const statement = (from: string, to: string) => c.get(`/api/v1/accounts/${a}/statement?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);

  async function postAndTime(lines: unknown[]): Promise<string> {
    if (at.length > 0) await sleep(2); // each posting in a millisecond of its own, so periods can split them
    const res = await post(c, lines);
    expect(res.status, res.text).toBe(201);
    const got = await c.get(`/api/v1/transactions/${res.body.transactionId}`);
    expect(got.status, got.text).toBe(200);
    const createdAt = got.body.createdAt as string;
    if (at.length > 0) expect(Date.parse(createdAt)).toBeGreaterThan(Date.parse(at[at.length - 1]!));
    at.push(createdAt);
    return createdAt;
  }

  const t = useServerWithAccounts({ accounts: { a: { name: 'busy', type: 'ASSET' }, b: { name: 'other', type: 'LIABILITY' } } });
  beforeAll(async () => {
    ({ client: c, accounts: { a, b } } = t);
    // 500 debits and 500 credits of A in each posting: 1000 movements of A, balanced within the account.
    const full = Array.from({ length: LINES_MAX }, (_, i) => fiat(a, i % 2 === 0 ? 'DEBIT' : 'CREDIT', '0.01'));
    for (let p = 0; p < MOVEMENTS_MAX / LINES_MAX; p++) await postAndTime(full);
  });

  it('exactly 10,000 movements: 200 with every one of them, ascending', async () => {
    const res = await statement(FAR_PAST, FAR_FUTURE);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    const m = res.body.movements as Array<{ occurredAt: string; amount: number; type: string }>;
    expect(m).toHaveLength(MOVEMENTS_MAX);
    for (let i = 1; i < m.length; i++) expect(m[i]!.occurredAt >= m[i - 1]!.occurredAt).toBe(true);
    expect(m.filter((x) => x.type === 'DEBIT')).toHaveLength(MOVEMENTS_MAX / 2);
    expect(res.body.openingBalance).toBe(0);
    expect(res.body.closingBalance).toBe(0);
  });

  it('on-chain lines are not movements: after an on-chain posting on the account the same period is still 200 with 10,000', async () => {
    await postAndTime([onchain(a, 'DEBIT', '5', 'USDC'), onchain(a, 'CREDIT', '5', 'USDC'), onchain(b, 'DEBIT', '1', 'USDT'), onchain(a, 'CREDIT', '1', 'USDT')]);
    const res = await statement(FAR_PAST, FAR_FUTURE);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.body.movements).toHaveLength(MOVEMENTS_MAX);
  });

  it('10,001 movements: 400 VALIDATION_FAILED, whose message says the period holds more than 10,000 and asks for a shorter one', async () => {
    expect(at).toHaveLength(11); // the on-chain posting of the test before is in place
    await postAndTime([fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')]);
    const res = await statement(FAR_PAST, FAR_FUTURE);
    expectValidation(res, { message: /more than 10,?000 movements/ });
    expect(res.body.message).toMatch(/shorter period/);
    // A validation error, so it names the parameter to change, as every validation error does.
    expect(res.body.details?.length, res.text).toBeGreaterThan(0);
    expect(['from', 'to'], res.text).toContain(res.body.details[0].path);
    // The bounds of the period count: from and to are both inclusive.
    expectValidation(await statement(at[0]!, at[11]!));
  });

  it('a period that leaves one posting out is answered: 200 with the movements inside it', async () => {
    // Up to the 10th posting (to is inclusive): exactly 10,000 again.
    const upTo10 = await statement(FAR_PAST, at[9]!);
    expect(upTo10.status, upTo10.text.slice(0, 500)).toBe(200);
    expect(upTo10.body.movements).toHaveLength(MOVEMENTS_MAX);
    expect(upTo10.body.closingBalance).toBe(0);
    // From the 2nd posting on (from is inclusive): 9,000 + the last FIAT line = 9,001.
    const from2 = await statement(at[1]!, FAR_FUTURE);
    expect(from2.status, from2.text.slice(0, 500)).toBe(200);
    expect(from2.body.movements).toHaveLength(9 * LINES_MAX + 1);
    expect(from2.body.closingBalance).toBe(1);
    // The other account of the last posting has one movement, whatever the period.
    const other = await c.get(`/api/v1/accounts/${b}/statement?from=${FAR_PAST}&to=${FAR_FUTURE}`);
    expect(other.status, other.text).toBe(200);
    expect(other.body.movements).toHaveLength(1);
  });
});
