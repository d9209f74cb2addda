// Acknowledged writes survive: a graceful stop answers what is in flight, and a killed server loses nothing it acknowledged.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BIN, client, createTenant, fiat, makeAccount, post } from './helpers/server.js';

const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function serve(dbPath: string): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, '--db', dbPath, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, url, exited };
}

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-durability-'));
  dirs.push(dir);
  const dbPath = join(dir, 'ledger.db');
  const tenant = await createTenant(dbPath);
  const server = await serve(dbPath);
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
  it('SIGTERM answers the postings in flight, commits them, and exits 0', async () => {
    const { dbPath, server, c, a, b } = await setup();
    const inFlight = Array.from({ length: 40 }, (_, i) => post(c, [fiat(a, 'DEBIT', `${i + 1}.00`), fiat(b, 'CREDIT', `${i + 1}.00`)]));
    // Once the first answer is in, the server is serving and the others are in flight: stop it then, not after a guess.
    await Promise.race(inFlight);
    server.child.kill('SIGTERM');
    const answers = await Promise.allSettled(inFlight);
    expect(await server.exited).toBe(0);
    const created = answers.filter((r) => r.status === 'fulfilled' && r.value.status === 201).length;
    // Requests the server had not accepted before it stopped listening fail to connect; every accepted one was answered.
    for (const r of answers) if (r.status === 'fulfilled') expect(r.value.status).toBe(201);
    expect(created).toBeGreaterThan(0);
    expect(countTransactions(dbPath)).toBe(created);
  });

  it('a killed server (SIGKILL) has lost no acknowledged posting', async () => {
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
