// Large request bodies take turns on the HTTP thread (server/turns.ts): between two turns the event loop goes round
// once, so whatever arrived meanwhile (a message from the writer thread, another request's I/O) runs between them.
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Turns } from '../../src/server/turns.js';

describe('turns of large bodies', () => {
  it('a message that arrives during one turn is handled before the next turn, not after all of them', async () => {
    const turns = new Turns();
    const order: string[] = [];
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<void>((resolve) =>
      port1.once('message', () => {
        order.push('message');
        resolve();
      }),
    );
    const large = ['a', 'b', 'c'].map((name) =>
      turns.take().then(() => {
        order.push(name);
        // What the first one's work sends (as a write's answer arrives from the writer thread).
        if (name === 'a') port2.postMessage('answer');
      }),
    );
    await Promise.all([...large, received]);
    port1.close();
    expect(order).toEqual(['a', 'message', 'b', 'c']);
  });

  it('turns are given in the order asked, one at a time, and the queue empties', async () => {
    const turns = new Turns();
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((n) => turns.take().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3, 4]);
    expect(turns.queued).toBe(0);
    // Free again: the next one is given on the next round.
    await turns.take();
  });
});
