// Requests the benchmarks send, shared by `bench/run.ts`, `bench/tls.ts` and `bench/fairness.ts`.
import { randomUUID } from 'node:crypto';
import { BODY_SIZE_MAX_BYTES } from '../src/core/limits.js';

/** The maximum-size posting: lines, characters per description and metadata value, metadata entries. */
export const HEAVY_LINES = 1000;
const HEAVY_TEXT = 1000;
const HEAVY_METADATA = 50;

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


/**
 * A maximum-size posting (or hold) body: HEAVY_LINES FIAT lines alternating DEBIT/CREDIT between two accounts, 1 KiB
 * descriptions, 50 metadata entries of 1 KiB, and whatever `extra` fields a hold takes (expiresAt).
 */
export function heavyBody(debitAccount: string, creditAccount: string, extra: Record<string, unknown> = {}): string {
  const description = 'd'.repeat(HEAVY_TEXT);
  const body = JSON.stringify({
    lines: Array.from({ length: HEAVY_LINES }, (_, i) => ({
      accountId: i % 2 === 0 ? debitAccount : creditAccount,
      entryType: i % 2 === 0 ? 'DEBIT' : 'CREDIT',
      monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' },
      description,
    })),
    metadata: Object.fromEntries(Array.from({ length: HEAVY_METADATA }, (_, i) => [`note-${i}`, String(i % 10).repeat(HEAVY_TEXT)])),
    ...extra,
  });
  const bytes = Buffer.byteLength(body);
  if (bytes >= BODY_SIZE_MAX_BYTES) throw new Error(`the ${HEAVY_LINES}-line body is ${bytes} bytes, not under ${BODY_SIZE_MAX_BYTES}`);
  return body;
}
