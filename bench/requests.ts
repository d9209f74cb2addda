// Requests the benchmarks send, shared by `bench/run.ts` and `bench/tls.ts`.
import { randomUUID } from 'node:crypto';

/** A 2-line posting between two random accounts of the list, under a fresh Idempotency-Key. */
export function postRequestFor(accounts: string[], json: Record<string, string>) {
  return {
    method: 'POST' as const,
    path: '/api/v1/transactions',
    setupRequest: (req: any) => {
      const a = accounts[Math.floor(Math.random() * accounts.length)]!;
      let b = accounts[Math.floor(Math.random() * accounts.length)]!;
      if (b === a) b = accounts[(accounts.indexOf(a) + 1) % accounts.length]!;
      req.headers = { ...json, 'idempotency-key': randomUUID() };
      req.body = JSON.stringify({
        lines: [
          { accountId: a, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } },
          { accountId: b, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } },
        ],
      });
      return req;
    },
  };
}

