// Acknowledged writes survive a stopped or killed server process.
//
// What these tests prove, and what they do not: SIGTERM drains and commits what is in flight; SIGKILL kills the
// process but leaves the operating system's page cache intact, so it proves that an answer is sent only after its
// commit, not that the commit reached the disk. That a commit is fsynced before the answer (power loss) rests on
// synchronous=FULL, which the first test reads back from every connection the server itself opened.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BetterSqlite3 } from '../../src/store/sqlite/driver.js';
import { client, createTenant, fiat, makeAccount, post } from '../helpers/server.js';
import { killAll, spawnServe } from '../helpers/spawn.js';
import { until } from '../helpers/poll.js';
import { holdWrites } from '../helpers/writeLock.js';

const dirs: string[] = [];

afterEach(async () => {
  await killAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-durability-'));
  dirs.push(dir);
  const dbPath = join(dir, 'ledger.db');
  const tenant = await createTenant(dbPath);
  const server = await spawnServe(dbPath);
  const c = client(server.url, tenant.apiKey.rawKey);
  const a = await makeAccount(c);
  const b = await makeAccount(c);
  return { dbPath, server, c, a, b };
}

const countTransactions = (dbPath: string): number => {
  const db = new BetterSqlite3(dbPath, { readonly: true });
  try {
    return Number((db.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number }).n);
  } finally {
    db.close();
  }
};

describe('durability', () => {
  it('every connection the server opens runs WAL with synchronous=FULL, as each reports at start', async () => {
    const { server } = await setup();
    // Logged before the URL is printed, on the other pipe: wait for it rather than assume the order of arrival.
    const storage = await until('the storage line', () => /storage: SQLite (\S+): (.*)$/m.exec(server.stderr()) ?? undefined);
    const connections = storage![2]!.split('; ');
    expect(connections.map((c) => c.replace(/ journal_mode.*$/, ''))).toEqual(['reader', 'writer', 'checkpointer']);
    for (const connection of connections) expect(connection, storage![0]).toMatch(/ journal_mode=wal synchronous=FULL$/);
  });

  it('SIGTERM answers the postings in flight, commits them, and exits 0', async () => {
    const { dbPath, server, c, a, b } = await setup();
    // The test holds the write lock, so none of these postings can commit before the signal: each one the server
    // has received is in flight when SIGTERM arrives, however busy the machine.
    const lock = await holdWrites(dbPath);
    let answers!: Array<PromiseSettledResult<Awaited<ReturnType<typeof post>>>>;
    let draining!: number;
    try {
      // Settled as they end: a request the stopping server never accepted fails at once, before anything awaits it.
      const inFlight = Promise.allSettled(Array.from({ length: 40 }, (_, i) => post(c, [fiat(a, 'DEBIT', `${i + 1}.00`), fiat(b, 'CREDIT', `${i + 1}.00`)])));
      // The server has read them (a request sent after them is answered, and a moment more), not committed them.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      server.child.kill('SIGTERM');
      // The server's own count of the handlers it waits for, logged when the signal arrives.
      const logged = await until('the drain line', () => /SIGTERM received: draining (\d+) in-flight requests?$/m.exec(server.stderr()) ?? undefined);
      draining = Number(logged![1]);
      // Only now can they commit: every commit below came after the signal.
      await lock.release();
      answers = await inFlight;
    } finally {
      await lock.release();
    }
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(draining, 'postings in flight when SIGTERM arrived').toBeGreaterThan(0);
    // Requests the server had not accepted before it stopped listening fail to connect; every accepted one was answered.
    for (const r of answers) if (r.status === 'fulfilled') expect(r.value.status, r.value.text).toBe(201);
    const created = answers.filter((r) => r.status === 'fulfilled' && r.value.status === 201).length;
    expect(created).toBeGreaterThanOrEqual(draining);
    expect(countTransactions(dbPath)).toBe(created);
  });

  it('a killed server (SIGKILL) has committed every posting it acknowledged', async () => {
    const { dbPath, server, c, a, b } = await setup();
    const acknowledged: string[] = [];
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; ; i++) {
        const res = await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')], { key: `w${w}-${i}` }).catch(() => null);
        if (!res) return;
        if (res.status === 201) acknowledged.push(res.body.transactionId as string);
      }
    });
    await new Promise((r) => setTimeout(r, 700));
    server.child.kill('SIGKILL');
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(10);
    const db = new BetterSqlite3(dbPath, { readonly: true });
    try {
      const stored = new Set((db.prepare('SELECT id FROM transactions').all() as Array<{ id: string }>).map((r) => r.id));
      for (const id of acknowledged) expect(stored.has(id), id).toBe(true);
    } finally {
      db.close();
    }
  });
});
