// Every command refuses bad arguments the same way: exit code 2, a message on stderr that names the problem, nothing on
// stdout, nothing written. README, CLI reference: "Exit codes: 0 done, 1 the work failed (or `audit verify` found a
// broken chain), 2 invalid or missing arguments." and "Missing arguments are asked for only when stdin and stdout are a
// terminal; otherwise the command fails with a message."
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDb, cli, createTenant } from '../helpers/server.js';

const ID = '0190f000-0000-7000-8000-00000000beef';
const T = '$TENANT';
const A = '$ACCOUNT';

/** [command, arguments after --db, what stderr must name]. `$TENANT` and `$ACCOUNT` become a real tenant's and account's ids. */
const CASES: Array<[string, string[], RegExp]> = [
  // unknown options
  ...(
    [
      ['tenants', 'create', 'Acme'],
      ['keys', 'create', '--tenant', T, '--scopes', 'ADMIN'],
      ['keys', 'list', '--tenant', T],
      ['keys', 'revoke', ID, '--tenant', T],
      ['accounts', 'create', '--tenant', T, '--name', 'N', '--currency', 'USD', '--type', 'ASSET'],
      ['accounts', 'list', '--tenant', T],
      ['statement', ID, '--tenant', T, '--from', '2026-01-01', '--to', '2026-02-01'],
      ['policies', 'create', '--tenant', T, '--type', 'REQUIRE_HUMAN_APPROVAL_ABOVE', '--amount', '5'],
      ['policies', 'list', '--tenant', T],
      ['policies', 'delete', ID, '--tenant', T],
      ['agents', 'pending', '--tenant', T],
      ['agents', 'approve', ID, '--tenant', T],
      ['agents', 'reject', ID, '--tenant', T],
      ['watch'],
      ['watch', 'status'],
      ['audit', 'export', '--tenant', T, '--from', '2026-01-01', '--to', '2026-02-01'],
      ['audit', 'verify', '--tenant', T],
      ['webhooks', 'run'],
      ['webhooks', 'deliveries', '--tenant', T],
      ['webhooks', 'redeliver', ID, '--tenant', T],
      ['serve', '--port', '0'],
    ] as string[][]
  ).map((args): [string, string[], RegExp] => [`${args.filter((a) => /^[a-z]+$/.test(a)).slice(0, 2).join(' ')} --bogus`, [...args, '--bogus'], /--bogus/]),
  // missing required arguments or options
  ['tenants create (no name)', ['tenants', 'create'], /name/],
  ['keys create (no --tenant)', ['keys', 'create', '--scopes', 'ADMIN'], /--tenant/],
  ['keys create (no --scopes, no terminal)', ['keys', 'create', '--tenant', T], /--scopes/],
  ['keys list (no --tenant)', ['keys', 'list'], /--tenant/],
  ['keys revoke (no key id)', ['keys', 'revoke', '--tenant', T], /keyId/],
  ['accounts create (no --name, no terminal)', ['accounts', 'create', '--tenant', T, '--currency', 'USD', '--type', 'ASSET'], /--name/],
  ['accounts list (no --tenant)', ['accounts', 'list'], /--tenant/],
  ['statement (no --from)', ['statement', ID, '--tenant', T, '--to', '2026-02-01'], /--from|from/],
  ['policies create (no --type)', ['policies', 'create', '--tenant', T], /--type/],
  ['policies list (no --tenant)', ['policies', 'list'], /--tenant/],
  ['policies delete (no rule id)', ['policies', 'delete', '--tenant', T], /ruleId/],
  ['agents pending (no --tenant)', ['agents', 'pending'], /--tenant/],
  ['agents approve (no id)', ['agents', 'approve', '--tenant', T], /id/],
  ['agents reject (no --tenant)', ['agents', 'reject', ID], /--tenant/],
  ['watch (no chain endpoint)', ['watch'], /--evm-rpc, --solana-rpc or --tron-api/],
  ['audit export (no --to)', ['audit', 'export', '--tenant', T, '--from', '2026-01-01'], /--to/],
  ['audit verify (neither --tenant nor --file)', ['audit', 'verify'], /--tenant|--file/],
  ['webhooks deliveries (no --tenant)', ['webhooks', 'deliveries'], /--tenant/],
  ['webhooks redeliver (no event id)', ['webhooks', 'redeliver', '--tenant', T], /eventId/],
  // values outside what the option takes
  ['tenants create (a blank name)', ['tenants', 'create', '   '], /name/],
  ['keys create (an unknown scope)', ['keys', 'create', '--tenant', T, '--scopes', 'ROOT'], /scope/i],
  ['keys list (a tenant id that is not a UUID)', ['keys', 'list', '--tenant', 'acme'], /--tenant/],
  ['keys revoke (a key id that is not a UUID)', ['keys', 'revoke', 'abc', '--tenant', T], /keyId/],
  ['accounts create (an unknown currency)', ['accounts', 'create', '--tenant', T, '--name', 'N', '--currency', 'GBP', '--type', 'ASSET'], /currency/],
  ['accounts list (--limit 0)', ['accounts', 'list', '--tenant', T, '--limit', '0'], /limit/],
  ['statement (--from after --to)', ['statement', A, '--tenant', T, '--from', '2026-02-01', '--to', '2026-01-01'], /from/],
  ['policies create (an amount that is not a number)', ['policies', 'create', '--tenant', T, '--type', 'MAX_DEBIT_PER_HOUR', '--amount', 'lots'], /amount/],
  ['policies delete (a rule id that is not a UUID)', ['policies', 'delete', 'abc', '--tenant', T], /ruleId/],
  ['agents reject (an id that is not a UUID)', ['agents', 'reject', 'abc', '--tenant', T], /id/],
  ['watch (--evm-confirmations abc)', ['watch', '--evm-rpc', 'http://127.0.0.1:9', '--evm-confirmations', 'abc'], /confirmations/],
  ['watch status (--evm-rpc not a URL)', ['watch', 'status', '--evm-rpc', 'not a url'], /evm-rpc/],
  ['audit export (--type BOTH)', ['audit', 'export', '--tenant', T, '--from', '2026-01-01', '--to', '2026-02-01', '--type', 'BOTH'], /type/],
  ['audit export (--from not a time)', ['audit', 'export', '--tenant', T, '--from', 'yesterday', '--to', '2026-02-01'], /from/],
  ['webhooks deliveries (--limit 201)', ['webhooks', 'deliveries', '--tenant', T, '--limit', '201'], /limit/],
  ['webhooks redeliver (an event id that is not a UUID)', ['webhooks', 'redeliver', 'abc', '--tenant', T], /eventId/],
  ['serve (--port abc)', ['serve', '--port', 'abc'], /port/],
  ['serve (--settlement-ttl 0)', ['serve', '--port', '0', '--settlement-ttl', '0'], /--settlement-ttl/],
  ['serve (--body-timeout 0)', ['serve', '--port', '0', '--body-timeout', '0'], /--body-timeout/],
  ['serve (--rate-limit -1)', ['serve', '--port', '0', '--rate-limit', '-1'], /--rate-limit/],
  ['an unknown command', ['frobnicate'], /frobnicate/],
];

describe('exit code 2 for bad arguments, on every command', () => {
  let dir: string;
  let db: string;
  let tenantId: string;
  let accountId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-exit-codes-'));
    db = await testDb(dir);
    tenantId = (await createTenant(db)).tenantId;
    const account = await cli(['--db', db, 'accounts', 'create', '--tenant', tenantId, '--name', 'cash', '--currency', 'USD', '--type', 'ASSET', '--json']);
    accountId = JSON.parse(account.stdout).id;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.concurrent.each(CASES)('%s', async (_name, args, names) => {
    const run = await cli(['--db', db, ...args.map((a) => (a === T ? tenantId : a === A ? accountId : a))]);
    expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(2);
    expect(run.stderr).toMatch(names);
    expect(run.stdout).toBe('');
  });

  it('wrote nothing: one tenant, its first key, its one account, no policy rule', async () => {
    const run = async (...args: string[]) => {
      const result = await cli(['--db', db, ...args, '--tenant', tenantId, '--json']);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };
    const keys = await run('keys', 'list');
    expect(keys.items ?? keys).toHaveLength(1);
    expect((await run('accounts', 'list')).items.map((a: { id: string }) => a.id)).toEqual([accountId]);
    expect(await run('policies', 'list')).toEqual([]);
  });
});
