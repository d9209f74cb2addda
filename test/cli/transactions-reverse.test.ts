// `ledger transactions reverse` (issue 30): an operator reverses a transaction on the database, as the endpoint does;
// a refusal exits 1 (with --json, the endpoint's error body on stdout); bad options exit 2.
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, fiat, post, useServerWithAccounts, type Client } from '../helpers/server.js';

describe('ledger transactions reverse', () => {
  let c: Client;
  let a: string;
  let b: string;
  const transactions = (...args: string[]) => cli(['--db', t.dbPath, 'transactions', ...args, '--tenant', t.tenant.tenantId]);
  const posted = async () => (await post(c, [{ ...fiat(a, 'DEBIT', '2.50'), description: 'typo' }, fiat(b, 'CREDIT', '2.50')])).body.transactionId as string;

  const t = useServerWithAccounts({ accounts: { a: 'ASSET', b: 'LIABILITY' } });
  beforeAll(() => {
    ({ client: c, accounts: { a, b } } = t);
  });

  it('--json prints the endpoint\'s answer; the reversal is linked, with the description and metadata given; a second is refused (exit 1)', async () => {
    const id = await posted();
    const reversed = await transactions('reverse', id, '--description', 'posted twice', '--metadata', 'ticket=T-7', '--metadata', 'note=a=b', '--json');
    expect(reversed.code, reversed.stderr).toBe(0);
    const answer = JSON.parse(reversed.stdout);
    expect(Object.keys(answer).sort()).toEqual(['reversesTransactionId', 'transactionId']);
    expect(answer.reversesTransactionId).toBe(id);
    const reversal = (await c.get(`/api/v1/transactions/${answer.transactionId}`)).body;
    expect(reversal.metadata).toEqual({ ticket: 'T-7', note: 'a=b', reversesTransactionId: id });
    expect(reversal.lines.map((l: any) => [l.accountId, l.type, l.description])).toEqual([
      [a, 'CREDIT', 'posted twice'],
      [b, 'DEBIT', 'posted twice'],
    ]);
    expect((await c.get(`/api/v1/transactions/${id}`)).body.reversedByTransactionId).toBe(answer.transactionId);
    // The audit record names the operator.
    const audit = await cli(['--db', t.dbPath, 'audit', 'export', '--tenant', t.tenant.tenantId, '--from', '2000-01-01', '--to', '2100-01-01']);
    const record = audit.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((r) => r.action === 'REVERSE_TRANSACTION');
    expect(record).toMatchObject({ actorKeyId: 'cli', payload: { transactionId: answer.transactionId, reversesTransactionId: id } });

    const again = await transactions('reverse', id, '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ code: 'ALREADY_REVERSED', reversalTransactionId: answer.transactionId });
    const forPeople = await transactions('reverse', id);
    expect(forPeople.code).toBe(1);
    expect(forPeople.stderr).toContain(`already reversed by transaction ${answer.transactionId}`);
  });

  it('prints the reversal for people; a reversal cannot be reversed (exit 1); bad options exit 2 and change nothing', async () => {
    const id = await posted();
    const reversed = await transactions('reverse', id);
    expect(reversed.code, reversed.stderr).toBe(0);
    expect(reversed.stdout).toContain(`Transaction ${id} reversed.`);
    expect(reversed.stdout).toContain(`reverses ${id}`);
    expect(reversed.stdout).toMatch(/CREDIT.*2\.5.*typo/);
    const reversalId = /Transaction (\S+), /.exec(reversed.stdout.split('\n')[1]!)![1]!;
    const refused = await transactions('reverse', reversalId, '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ code: 'NOT_REVERSIBLE' });

    const other = await posted();
    for (const bad of [['--metadata', 'no-equals'], ['--metadata', 'reversesTransactionId=x'], ['--description', 'x'.repeat(501)]]) {
      const res = await transactions('reverse', other, ...bad);
      expect(res.code, `${bad.join(' ')}: ${res.stderr}`).toBe(2);
    }
    expect((await transactions('reverse', 'not-a-uuid')).code).toBe(2);
    expect((await c.get(`/api/v1/transactions/${other}`)).body.reversedByTransactionId).toBeNull();
    const get = await transactions('get', id);
    expect(get.stdout).toContain('reversed by');
  });
});
