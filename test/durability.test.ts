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
import { BetterSqlite3 } from '../src/store/sqlite/driver.js';
import { client, createTenant, fiat, makeAccount, post } from './helpers/server.js';
import { killAll, spawnServe } from './helpers/spawn.js';
import { until } from './helpers/poll.js';

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
    const inFlight = Array.from({ length: 40 }, (_, i) => post(c, [fiat(a, 'DEBIT', `${i + 1}.00`), fiat(b, 'CREDIT', `${i + 1}.00`)]));
    // Once the first answer is in, the server is serving and the others are in flight: stop it then, not after a guess.
    await Promise.race(inFlight);
    server.child.kill('SIGTERM');
    const answers = await Promise.allSettled(inFlight);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const created = answers.filter((r) => r.status === 'fulfilled' && r.value.status === 201).length;
    // Requests the server had not accepted before it stopped listening fail to connect; every accepted one was answered.
    for (const r of answers) if (r.status === 'fulfilled') expect(r.value.status).toBe(201);
    expect(created).toBeGreaterThan(0);
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
