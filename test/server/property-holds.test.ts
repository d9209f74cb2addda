// Property (issue 19): whatever sequence of postings, holds, captures (whole or in part), voids and expiries arrives,
// every balance, pending and available amount the server reports equals what a model of the entries and the open
// holds implies, a limit is never passed, and what the model refuses the server refuses, changing nothing.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fiat, makeAccount, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectTrialBalance, type Books } from '../helpers/trial-balance.js';
import { checkProperty } from '../helpers/property.js';

type Op =
  | { kind: 'fund'; wallet: 0 | 1; cents: number }
  | { kind: 'pay'; wallet: 0 | 1; cents: number }
  | { kind: 'hold'; wallet: 0 | 1; cents: number; lifeMs: number }
  | { kind: 'capture'; hold: number; partOf: number | null }
  | { kind: 'void'; hold: number }
  | { kind: 'expire'; hold: number };

const cents = fc.integer({ min: 1, max: 5000 });
const wallet = fc.constantFrom<0 | 1>(0, 1);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('fund' as const), wallet, cents }),
  fc.record({ kind: fc.constant('pay' as const), wallet, cents }),
  fc.record({ kind: fc.constant('hold' as const), wallet, cents, lifeMs: fc.integer({ min: 60_000, max: 3_600_000 }) }),
  fc.record({ kind: fc.constant('capture' as const), hold: fc.nat(20), partOf: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }) }),
  fc.record({ kind: fc.constant('void' as const), hold: fc.nat(20) }),
  fc.record({ kind: fc.constant('expire' as const), hold: fc.nat(20) }),
);

const text = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

describe('property: balances, pending and available under holds', () => {
  let c: Client;
  let now = Date.parse('2031-01-01T00:00:00.000Z');
  const clock = { now: () => new Date(now) };

  const t = useServerWithAccounts({ clock });
  beforeAll(() => {
    c = t.client;
  });

  it('every reported figure equals the model; refusals change nothing; the trial balance is the model\'s', async () => {
    /** Every run's accounts with their balances in cents as debits minus credits (holds count once captured). */
    const books: Books = new Map();
    await checkProperty(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 30 }), async (ops) => {
        // Wallet 0 may not go below 0 (holds counted); wallet 1 has no limit.
        const wallets = [await makeAccount(c, { name: 'w0' }), await makeAccount(c, { name: 'w1' })];
        const merchant = await makeAccount(c, { name: 'merchant' });
        const funding = await makeAccount(c, { name: 'funding', type: 'EQUITY' });
        expect((await c.request('PUT', `/api/v1/accounts/${wallets[0]}/limits`, { body: { limits: [{ asset: 'USD', min: '0' }] } })).status).toBe(200);
        const amount = new Map<string, number>([...wallets, merchant].map((a) => [a, 0]));
        amount.set(funding, 0);
        const holds: Array<{ id: string; wallet: 0 | 1; cents: number; expiresAt: number; status: string }> = [];
        const pendingOf = (w: 0 | 1) => holds.filter((h) => h.wallet === w && h.status === 'PENDING').reduce((sum, h) => sum + h.cents, 0);
        const fits = (w: 0 | 1, change: number, reserve: number) => w === 1 || amount.get(wallets[w]!)! + change - pendingOf(w) - reserve >= 0;
        const move = (from: string, to: string, n: number) => {
          amount.set(from, amount.get(from)! - n);
          amount.set(to, amount.get(to)! + n);
        };

        for (const o of ops) {
          if (o.kind === 'fund') {
            const res = await post(c, [fiat(wallets[o.wallet]!, 'DEBIT', text(o.cents)), fiat(funding, 'CREDIT', text(o.cents))]);
            expect(res.status, res.text).toBe(201);
            amount.set(wallets[o.wallet]!, amount.get(wallets[o.wallet]!)! + o.cents);
            amount.set(funding, amount.get(funding)! + o.cents);
          } else if (o.kind === 'pay') {
            const res = await post(c, [fiat(merchant, 'DEBIT', text(o.cents)), fiat(wallets[o.wallet]!, 'CREDIT', text(o.cents))]);
            const ok = fits(o.wallet, -o.cents, 0);
            expect(res.status, `${JSON.stringify(o)}: ${res.text}`).toBe(ok ? 201 : 422);
            if (ok) move(wallets[o.wallet]!, merchant, o.cents);
          } else if (o.kind === 'hold') {
            const expiresAt = now + o.lifeMs;
            const res = await c.post(
              '/api/v1/holds',
              { lines: [fiat(merchant, 'DEBIT', text(o.cents)), fiat(wallets[o.wallet]!, 'CREDIT', text(o.cents))], expiresAt: new Date(expiresAt).toISOString() },
              { 'idempotency-key': randomUUID() },
            );
            const ok = fits(o.wallet, 0, o.cents);
            expect(res.status, `${JSON.stringify(o)}: ${res.text}`).toBe(ok ? 201 : 422);
            if (ok) holds.push({ id: res.body.holdId, wallet: o.wallet, cents: o.cents, expiresAt, status: 'PENDING' });
          } else if (holds.length > 0) {
            const h = holds[o.hold % holds.length]!;
            if (o.kind === 'expire') {
              now = Math.max(now, h.expiresAt) + 1;
              await t.server.ledger.holds.expireDue(500);
              for (const other of holds) if (other.status === 'PENDING' && other.expiresAt <= now) other.status = 'EXPIRED'; // expired at expiresAt itself
            } else if (o.kind === 'void') {
              const res = await c.request('POST', `/api/v1/holds/${h.id}/void`);
              expect(res.status, res.text).toBe(h.status === 'PENDING' ? 200 : 409);
              if (h.status === 'PENDING') h.status = 'VOIDED';
            } else {
              const part = o.partOf === null ? h.cents : Math.max(1, Math.floor((h.cents * o.partOf) / 100));
              const res = await c.post(`/api/v1/holds/${h.id}/capture`, o.partOf === null ? {} : { amount: text(part) });
              expect(res.status, res.text).toBe(h.status === 'PENDING' ? 200 : 409);
              if (h.status === 'PENDING') {
                h.status = 'CAPTURED';
                move(wallets[h.wallet]!, merchant, part);
              }
            }
          }
          // Every figure, after every step.
          for (const [i, account] of [...wallets, merchant, funding].entries()) {
            const body = (await c.get(`/api/v1/accounts/${account}/balance`)).body;
            const pending = i < 2 ? pendingOf(i as 0 | 1) : 0;
            expect({ amount: Math.round(body.amount * 100), pending: Math.round(body.pending * 100), available: Math.round(body.available * 100) }, JSON.stringify(o)).toEqual({
              amount: amount.get(account),
              pending,
              available: amount.get(account)! - pending,
            });
          }
          expect(amount.get(wallets[0]!)! - pendingOf(0)).toBeGreaterThanOrEqual(0);
        }
        // Wallets and merchant are assets (debit-normal), funding is equity (credit-normal).
        for (const account of [...wallets, merchant]) books.set(account, { type: 'ASSET', raw: new Map([['USD', BigInt(amount.get(account)!)]]) });
        books.set(funding, { type: 'EQUITY', raw: new Map([['USD', -BigInt(amount.get(funding)!)]]) });
        await expectTrialBalance(c, books);
      }),
      { numRuns: 15 },
    );
    // About 15 s alone; a minute or more beside other suites on a busy machine.
  }, 120_000);
});
