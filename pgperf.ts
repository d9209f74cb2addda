import { startTestPostgres, freshDatabaseUrl } from './test/helpers/postgres.ts';
import { openLedger } from './src/store/open.ts';
const pg = await startTestPostgres();
try {
  const url = await freshDatabaseUrl(pg.url);
  const o = await openLedger(url, { writer: 'local' });
  const t = await o.ledger.createTenant('x', { type: 'HUMAN', keyId: 'cli' });
  const actor = { type: 'HUMAN' as const, keyId: 'cli' };
  let t0 = Date.now();
  for (let i = 0; i < 100; i++) await o.ledger.createAccount(t.tenantId, { name: 'a' + i, currency: 'USD', type: 'ASSET' }, actor);
  console.log('sequential 100 accounts ms', Date.now() - t0);
  t0 = Date.now();
  await Promise.all(Array.from({ length: 200 }, (_, i) => o.ledger.createAccount(t.tenantId, { name: 'b' + i, currency: 'USD', type: 'ASSET' }, actor)));
  console.log('parallel 200 accounts ms', Date.now() - t0);
  await o.close();
} finally { await pg.stop(); }
