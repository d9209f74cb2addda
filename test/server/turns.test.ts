// Requests with large bodies take turns on the HTTP thread (server/turns.ts): between two turns the event loop goes
// round once, so whatever arrived meanwhile (a message from the writer thread, another request's I/O) runs between
// them; and only a few are under way at once, the others waiting unparsed.
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Turns } from '../../src/server/turns.js';

describe('turns of large bodies', () => {
  it('a message that arrives during one turn is handled before the next turn, not after all of them', async () => {
    const turns = new Turns(4);
    const order: string[] = [];
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<void>((resolve) =>
      port1.once('message', () => {
        order.push('message');
        resolve();
      }),
    );
    const large = ['a', 'b', 'c'].map((name) =>
      turns.run(async () => {
        order.push(name);
        // What the first one's work sends (as a write's answer arrives from the writer thread).
        if (name === 'a') port2.postMessage('answer');
      }),
    );
    await Promise.all([...large, received]);
    port1.close();
    expect(order).toEqual(['a', 'message', 'b', 'c']);
  });

  it('at most inFlightMax are under way at once, in the order asked; the next starts when one settles, failed or not', async () => {
    const turns = new Turns(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const settle: Array<() => void> = [];
    const runs = [1, 2, 3, 4, 5].map((n) =>
      turns.run(async () => {
        order.push(n);
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => settle.push(resolve));
        running--;
        if (n === 2) throw new Error('refused');
      }),
    );
    // Judged at the end (allSettled); handled now, so the second's refusal is not an unhandled rejection meanwhile.
    for (const run of runs) run.catch(() => {});
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
    };
    await rounds(5);
    expect(order).toEqual([1, 2]);
    settle.shift()!();
    await rounds(5);
    expect(order).toEqual([1, 2, 3]);
    // The second fails: its place is given all the same.
    settle.shift()!();
    await rounds(5);
    expect(order).toEqual([1, 2, 3, 4]);
    while (settle.length > 0 || order.length < 5) {
      settle.shift()?.();
      await rounds(2);
    }
    const results = await Promise.allSettled(runs);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(order).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    expect(turns.queued).toBe(0);
  });
});
