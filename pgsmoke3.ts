import { startTestPostgres, freshDatabaseUrl } from './test/helpers/postgres.ts';
import { startServer } from './src/server/serve.ts';
import { cli, createTenant, client } from './test/helpers/server.ts';
const pg = await startTestPostgres();
process.env.LEDGER_TEST_PG_ADMIN_URL = pg.url;
try {
  const url = await freshDatabaseUrl(pg.url);
  const tenant = await createTenant(url);
  const s = await startServer({ db: url, host: '127.0.0.1', port: 0, log: (l) => console.log('LOG', l) });
  const admin = client(s.url, tenant.apiKey.rawKey);
  const k = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
  console.log('created', k.status);
  let t0 = Date.now();
  const ex = await admin.get('/api/v1/compliance/audit-export?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z');
  console.log('export', ex.status, Date.now() - t0, ex.text.length);
  t0 = Date.now();
  const r = await cli(['--db', url, 'keys', 'revoke', k.body.id, '--tenant', tenant.tenantId]);
  console.log('cli', r.code, Date.now() - t0, r.stderr);
  t0 = Date.now();
  const l = await admin.get('/api/v1/api-keys');
  console.log('list', l.status, Date.now() - t0);
  const ex2 = await admin.get('/api/v1/compliance/audit-export?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z');
  console.log('export2', ex2.status, Date.now() - t0);
  await s.close();
} finally { await pg.stop(); }
