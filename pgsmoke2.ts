import { startTestPostgres, freshDatabaseUrl } from './test/helpers/postgres.ts';
import { execFileSync } from 'node:child_process';
const pg = await startTestPostgres();
try {
  const url = await freshDatabaseUrl(pg.url);
  const run = (args: string[]) => { const t0 = Date.now(); try { const out = execFileSync(process.execPath, ['bin/ledger.js', '--db', url, ...args], { encoding: 'utf8', timeout: 20000 }); return `${Date.now()-t0}ms ${out}`; } catch (e: any) { return `EXIT ${e.status} ${e.signal} ${Date.now()-t0}ms: ${e.stderr}`; } };
  const t = JSON.parse(run(['tenants', 'create', 'Acme', '--json']).replace(/^\d+ms /, ''));
  const k = run(['keys', 'create', '--tenant', t.tenantId, '--scopes', 'ACCOUNTS_READ', '--json']);
  console.log(k);
  const key = JSON.parse(k.replace(/^\d+ms /, ''));
  console.log(run(['keys', 'revoke', key.id, '--tenant', t.tenantId]));
  console.log(run(['audit', 'export', '--tenant', t.tenantId, '--from', '2000-01-01T00:00:00Z', '--to', '2999-01-01T00:00:00Z']).slice(0, 300));
} finally { await pg.stop(); }
