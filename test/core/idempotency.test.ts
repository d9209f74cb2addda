// Idempotency (src/core/idempotency.ts): replays, reuse with another body, and the in-flight guard per tenant,
// endpoint and key.
import { describe, expect, it } from 'vitest';
import { InFlightKeys, once, replayOf, requestHash, storedReplay, type IdempotentRequest } from '../../src/core/idempotency.js';
import { LedgerError } from '../../src/core/errors.js';
import type { ReadStore } from '../../src/core/ports.js';

describe('idempotency', () => {
  it('hashes the fingerprint with SHA-256', () => {
    expect(requestHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('replays the stored response of the same request, refuses another, and answers nothing for an unused key', () => {
    const stored = { requestHash: 'h', status: 201, body: '{"a":1}' };
    expect(replayOf(undefined, 'h')).toBeUndefined();
    expect(replayOf(stored, 'h')).toEqual({ status: 201, body: '{"a":1}' });
    expect(() => replayOf(stored, 'other')).toThrow(expect.objectContaining({ code: 'IDEMPOTENCY_KEY_REUSED' }));
  });

  it('holds a key per tenant, endpoint and key: no two parts run together into one', async () => {
    const keys = new InFlightKeys();
    let release!: () => void;
    const held = keys.hold('t', 'e', 'k', () => new Promise<string>((r) => (release = () => r('first'))));
    await expect(keys.hold('t', 'e', 'k', async () => 'second')).rejects.toMatchObject({
      code: 'IDEMPOTENCY_IN_PROGRESS',
      message: 'A request with this Idempotency-Key is still in progress; retry after it completes.',
    });
    expect(await keys.hold('t', 'ek', '', async () => 'apart')).toBe('apart');
    expect(await keys.hold('te', '', 'k', async () => 'apart')).toBe('apart');
    expect(await keys.hold('u', 'e', 'k', async () => 'other tenant')).toBe('other tenant');
    release();
    expect(await held).toBe('first');
    // Released once done, and also after a failure.
    expect(await keys.hold('t', 'e', 'k', async () => 'again')).toBe('again');
    await expect(keys.hold('t', 'e', 'k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await keys.hold('t', 'e', 'k', async () => 'after failure')).toBe('after failure');
  });

  it('once: writes under an unused key, replays a used one, refuses another body (the write reads the key first)', async () => {
    const rows = new Map<string, { requestHash: string; status: number; body: string }>();
    const store = { idempotency: (t: string, e: string, k: string) => rows.get(`${t}/${e}/${k}`) } as unknown as ReadStore;
    const keys = new InFlightKeys();
    let writes = 0;
    // As every idempotent command does: the key's stored answer first (storedReplay), then the write.
    const writeOf = (req: IdempotentRequest) => async () => {
      const replay = await storedReplay(store, req);
      if (replay) return replay;
      writes++;
      rows.set('t/e/k', { requestHash: 'h', status: 201, body: 'b' });
      return { status: 201, body: 'b' };
    };
    const request = { tenantId: 't', endpoint: 'e', key: 'k', hash: 'h' };
    expect(await once(keys, request, writeOf(request))).toEqual({ status: 201, body: 'b' });
    expect(await once(keys, request, writeOf(request))).toEqual({ status: 201, body: 'b' });
    expect(writes).toBe(1);
    const other = { ...request, hash: 'x' };
    await expect(once(keys, other, writeOf(other))).rejects.toBeInstanceOf(LedgerError);
  });
});
