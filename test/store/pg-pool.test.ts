// The PostgreSQL connection pool (issue 14): bounded per process (`--db-pool`, LEDGER_DB_POOL); a read that cannot
// get a connection within 5 s answers 503 UNAVAILABLE (with Retry-After over HTTP), never a hang or a 500; the writer
// and the change listener do not take the readers' connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, type OpenLedger } from '../../src/store/open.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { cli } from '../helpers/server.js';

const cliActor = { type: 'HUMAN' as const, keyId: 'cli' };

describe('the PostgreSQL pool', () => {
  let db: string;
  let opened: OpenLedger;
  let tenantId: string;

  beforeAll(async () => {
    db = await freshDatabaseUrl();
    opened = await openLedger(db, { writer: 'local', poolSize: 1 });
    tenantId = (await opened.ledger.tenants.create('Pool', cliActor)).tenantId;
    for (let i = 0; i < 10; i++) await opened.ledger.accounts.create(tenantId, { name: `a${i}`, currency: 'USD', type: 'ASSET' }, cliActor);
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('a read waits at most 5 s for the one reader connection, then answers UNAVAILABLE; writes go on meanwhile', async () => {
    await opened.store.changeVersion(); // the listener: a connection of its own, not the reader's
    // A page being read holds the one reader connection until it ends.
    const page = opened.store.accountsPage(tenantId, null, 10)[Symbol.asyncIterator]();
    await page.next();
    const began = Date.now();
    await expect(opened.store.tenant(tenantId)).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('no connection was free') });
    expect(Date.now() - began).toBeGreaterThanOrEqual(4_500);
    // The writer has a connection of its own.
    await opened.ledger.accounts.create(tenantId, { name: 'meanwhile', currency: 'USD', type: 'ASSET' }, cliActor);
    await page.return?.(undefined);
    expect(await opened.store.tenant(tenantId)).toMatchObject({ id: tenantId });
  });

  it('--db-pool and LEDGER_DB_POOL take 1 to 1000; anything else exits 2 naming the flag', async () => {
    for (const [args, env] of [
      [['--db-pool', '0'], {}],
      [['--db-pool', '1001'], {}],
      [[], { LEDGER_DB_POOL: 'abc' }],
    ] as const) {
      const res = await cli(['--db', db, ...args, 'tenants', 'create', 'Pooled', '--json'], env);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain('--db-pool must be a whole number from 1 to 1000');
    }
    const ok = await cli(['--db', db, '--db-pool', '2', 'tenants', 'create', 'Pooled', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
  });
});
