// PostgreSQL restarted under load (issue 14): while it is away, requests answer 503 with Retry-After (never another
// 5xx, never a hang); the server recovers by itself when it is back; and a client that retries each 503 with the same
// Idempotency-Key ends with every posting there exactly once, nothing it was acknowledged lost.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, startOwnPostgres } from '../helpers/postgres.js';
import { cli } from '../helpers/server.js';
import { tenantOver, type HttpTenant } from '../helpers/tenant.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';
import { sqlOn } from '../helpers/sql.js';

const CLIENTS = 8;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL restarted under load', () => {
  let postgres: Awaited<ReturnType<typeof startOwnPostgres>>;
  let db: string;
  let server: Spawned & { url: string };
  let acme: HttpTenant;
  let accounts: string[];

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    db = await freshDatabaseUrl(postgres.url);
    acme = await tenantOver(db);
    server = await spawnServe(db);
    accounts = [await acme.account(server.url, 'cash'), await acme.account(server.url, 'revenue')];
  });

  afterAll(async () => {
    await killAll();
    await postgres?.stop();
  });

  it('answers 503 with Retry-After while it is away, recovers by itself, and loses nothing acknowledged', async () => {
    const acknowledged = new Map<string, string>(); // Idempotency-Key → transactionId
    const unavailable: Array<string | null> = []; // the Retry-After of each 503
    const unexpected: string[] = [];
    let restarted = false;
    let afterRestart = 0;
    let stop = false;

    // Each client posts, and retries a 503 with the same Idempotency-Key, as the README tells clients to.
    const load = Array.from({ length: CLIENTS }, async () => {
      while (!stop) {
        const key = randomUUID();
        for (;;) {
          const res = await acme.transfer(server.url, accounts[0]!, accounts[1]!, { key });
          if (res.status === 201) {
            acknowledged.set(key, ((await res.json()) as { transactionId: string }).transactionId);
            if (restarted) afterRestart++;
            break;
          }
          const body = await res.text();
          if (res.status === 503) unavailable.push(res.headers.get('retry-after'));
          else if (res.status !== 409) unexpected.push(`${res.status} ${body}`); // 409: its own earlier try is still in flight
          await sleep(50);
        }
      }
    });

    await sleep(500);
    await postgres.restart(1500);
    restarted = true;
    // Writes resume by themselves: wait until the clients have been answered 201 again, many times.
    const deadline = Date.now() + 30_000;
    while (afterRestart < 50 && Date.now() < deadline) await sleep(100);
    stop = true;
    await Promise.all(load);

    // On failure, what the server logged of the cause (a writer thread's own error is logged before it is answered 500).
    const cause = server.stderr().split('\n').filter((line) => /internal error|writer thread:|^\s+at /.test(line)).slice(0, 12).join(' | ');
    expect(unexpected, `answers other than 201, 503 and 409: ${unexpected.join(' | ')}; the server logged: ${cause}`).toEqual([]);
    expect(afterRestart).toBeGreaterThanOrEqual(50);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable.every((retryAfter) => retryAfter !== null && Number(retryAfter) >= 1)).toBe(true);

    // Every acknowledged posting is there, once; so is each key's posting, whatever answer its tries got.
    const stored = await sqlOn<{ id: string }>(db, 'select id from transactions where tenant_id = (select id from tenants where public_id = ?)', [acme.tenantId]);
    expect(new Set(stored.rows.map((r) => r.id))).toEqual(new Set(acknowledged.values()));
    expect(stored.rows).toHaveLength(acknowledged.size);

    // Reads recovered too, and the balance is the sum of what was acknowledged.
    const res = await fetch(`${server.url}/api/v1/accounts/${accounts[0]}/balance`, { headers: acme.headers });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { amount: number }).amount).toBe(acknowledged.size);

    const verify = await cli(['--db', db, 'audit', 'verify', '--tenant', acme.tenantId]);
    expect(verify.code, verify.stderr).toBe(0);
  });
});
