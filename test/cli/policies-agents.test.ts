// `ledger policies create|list|delete` and `ledger agents pending|approve|reject` through the built binary, on the
// database a running server uses: what the CLI does is seen over HTTP at once, and what agents do over HTTP is seen
// by the CLI. README, CLI reference: "a policy rule for agent transactions, with the fields its type needs"; "the
// tenant's rules, oldest first / delete one, effective at once"; "agent transactions held for approval"; "the operator
// approves (posts) or rejects a held agent transaction (recorded as AGENT, actor `cli`)". Exit codes: "1 the work
// failed ... 2 invalid or missing arguments".
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, fiat, useServerWithAccounts, type Client } from '../helpers/server.js';
import { ISO_MS, UUID } from '../helpers/expect.js';
import { AGENT_PATH, balanceOf, execute, exportAudit, fresh, newKey, RULES_PATH, type Key } from '../helpers/agents.js';

const UNKNOWN_ID = '0190f000-0000-7000-8000-00000000beef';

describe('ledger policies and ledger agents beside a running server', () => {
  let admin: Client;
  let agent: Key;
  let x: string;
  let y: string;
  const ledger = (...args: string[]) => cli(['--db', t.dbPath, ...args]);
  const tenantArgs = () => ['--tenant', t.tenant.tenantId];
  const pay = (amount: string) => execute(agent.c, [fiat(x, 'DEBIT', amount), fiat(y, 'CREDIT', amount)], { session: fresh('s') });
  /** An agent transaction over 50 while the approval rule stands: held, 202. */
  const held = async () => {
    const res = await pay('60.00');
    expect(res.status, res.text).toBe(202);
    expect(res.body.status).toBe('PENDING_APPROVAL');
    return res.body.transactionId as string;
  };
  const expectExit = (run: { code: number; stdout: string; stderr: string }, code: 1 | 2, message: RegExp) => {
    expect(run.code, run.stderr).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  };

  const t = useServerWithAccounts({ accounts: { x: { name: 'cash', type: 'ASSET' }, y: { name: 'payable', type: 'LIABILITY' } } });
  beforeAll(async () => {
    ({ client: admin, accounts: { x, y } } = t);
    agent = await newKey(admin, t.url, ['AGENTS_EXECUTE']);
  });

  let ruleId: string;

  it('policies create --json makes the rule the HTTP API lists, and it holds agent transactions at once', async () => {
    const run = await ledger('policies', 'create', ...tenantArgs(), '--type', 'REQUIRE_HUMAN_APPROVAL_ABOVE', '--amount', '50', '--agent-key-prefix', agent.prefix, '--json');
    expect(run.code, run.stderr).toBe(0);
    const rule = JSON.parse(run.stdout);
    expect(rule.id).toMatch(UUID);
    expect(rule).toMatchObject({ type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', agentKeyPrefix: agent.prefix });
    expect(rule.createdAt).toMatch(ISO_MS);
    ruleId = rule.id;
    const listed = await admin.get(RULES_PATH);
    expect(listed.status, listed.text).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(ruleId);
    await held();
    expect((await pay('40.00')).status).toBe(201);
  });

  it('policies create without the fields its type needs, or with an unknown type, exits 2 and writes nothing', async () => {
    const before = (await ledger('policies', 'list', ...tenantArgs(), '--json')).stdout;
    expectExit(await ledger('policies', 'create', ...tenantArgs(), '--type', 'REQUIRE_HUMAN_APPROVAL_ABOVE'), 2, /amount/);
    expectExit(await ledger('policies', 'create', ...tenantArgs(), '--type', 'FORBIDDEN_ACCOUNT_PAIR', '--debit-account', x), 2, /creditAccount/i);
    expectExit(await ledger('policies', 'create', ...tenantArgs(), '--type', 'NO_SUCH_RULE', '--amount', '5'), 2, /type/);
    expectExit(await ledger('policies', 'create', ...tenantArgs(), '--type', 'ALLOWED_TOKENS', '--tokens', 'USDC,DOGE'), 2, /tokens/);
    expect((await ledger('policies', 'list', ...tenantArgs(), '--json')).stdout).toBe(before);
  });

  it('policies list shows the rules oldest first, as JSON and as a table', async () => {
    const second = JSON.parse((await ledger('policies', 'create', ...tenantArgs(), '--type', 'ALLOWED_CHAINS', '--chains', 'EVM,SOLANA', '--agent-key-prefix', 'nobody_', '--json')).stdout);
    const run = await ledger('policies', 'list', ...tenantArgs(), '--json');
    expect(run.code, run.stderr).toBe(0);
    const ids = (JSON.parse(run.stdout) as Array<{ id: string }>).map((r) => r.id);
    expect(ids.indexOf(ruleId)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(second.id)).toBeGreaterThan(ids.indexOf(ruleId));
    const table = await ledger('policies', 'list', ...tenantArgs());
    expect(table.code, table.stderr).toBe(0);
    for (const text of [ruleId, 'REQUIRE_HUMAN_APPROVAL_ABOVE', second.id, 'ALLOWED_CHAINS', 'chains=EVM,SOLANA']) expect(table.stdout).toContain(text);
    expect(table.stdout.indexOf(ruleId)).toBeLessThan(table.stdout.indexOf(second.id));
    expect((await ledger('policies', 'delete', second.id, ...tenantArgs())).code).toBe(0);
  });

  it('agents pending lists the held transactions, as JSON and as a table', async () => {
    const id = await held();
    const run = await ledger('agents', 'pending', ...tenantArgs(), '--json');
    expect(run.code, run.stderr).toBe(0);
    const page = JSON.parse(run.stdout);
    expect(Object.keys(page).sort()).toEqual(['items', 'nextCursor']);
    const item = page.items.find((i: { id: string }) => i.id === id);
    expect(item).toMatchObject({ id, status: 'PENDING_APPROVAL', actorKeyId: agent.id });
    for (const i of page.items) expect(i.status).toBe('PENDING_APPROVAL');
    const table = await ledger('agents', 'pending', ...tenantArgs());
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(id);
    expect(table.stdout).toContain('DEBIT 60 USD');
  });

  it('agents approve posts the held transaction: POSTED over HTTP, balances moved, audited as AGENT by the cli', async () => {
    const id = await held();
    const before = await balanceOf(admin, x);
    const run = await ledger('agents', 'approve', id, ...tenantArgs());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`Agent transaction ${id} is POSTED.\n`);
    const record = await admin.get(`${AGENT_PATH}/${id}`);
    expect(record.status, record.text).toBe(200);
    expect(record.body).toMatchObject({ id, status: 'POSTED' });
    expect(record.body.decidedAt).toMatch(ISO_MS);
    expect((await admin.get(`/api/v1/transactions/${id}`)).status).toBe(200);
    expect(await balanceOf(admin, x)).toBe(before + 60);
    const decisions = (await exportAudit(admin, 'AGENT')).filter((r) => JSON.stringify(r.payload).includes(id) && r.actorKeyId === 'cli');
    expect(decisions.length, 'an AGENT record by the cli names the transaction').toBeGreaterThan(0);
    expect((await ledger('agents', 'pending', ...tenantArgs(), '--json')).stdout).not.toContain(id);
  });

  it('agents reject --json rejects it: REJECTED over HTTP, nothing posted, balances unchanged', async () => {
    const id = await held();
    const before = await balanceOf(admin, x);
    const run = await ledger('agents', 'reject', id, ...tenantArgs(), '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ transactionId: id, status: 'REJECTED' });
    expect((await admin.get(`${AGENT_PATH}/${id}`)).body.status).toBe('REJECTED');
    expect((await admin.get(`/api/v1/transactions/${id}`)).status).toBe(404);
    expect(await balanceOf(admin, x)).toBe(before);
  });

  it('deciding twice, or an unknown id, exits 1; a malformed id exits 2', async () => {
    const id = await held();
    expect((await ledger('agents', 'reject', id, ...tenantArgs())).code).toBe(0);
    expectExit(await ledger('agents', 'approve', id, ...tenantArgs()), 1, /REJECTED|not pending|already/i);
    expectExit(await ledger('agents', 'reject', UNKNOWN_ID, ...tenantArgs()), 1, /not found/i);
    expectExit(await ledger('agents', 'approve', 'nope', ...tenantArgs()), 2, /id/);
    expectExit(await ledger('agents', 'pending', '--tenant', UNKNOWN_ID), 1, /tenant/i);
  });

  it('policies delete removes the rule at once: the next agent transaction over 50 posts; an unknown rule exits 1', async () => {
    const run = await ledger('policies', 'delete', ruleId, ...tenantArgs());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`Policy rule ${ruleId} deleted.\n`);
    const listed = await admin.get(RULES_PATH);
    expect(JSON.stringify(listed.body)).not.toContain(ruleId);
    expect((await pay('60.00')).status).toBe(201);
    expectExit(await ledger('policies', 'delete', ruleId, ...tenantArgs()), 1, /not found/i);
    expectExit(await ledger('policies', 'delete', 'nope', ...tenantArgs()), 2, /ruleId/);
  });
});
