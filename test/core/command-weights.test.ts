// Every write weighs what it writes (issue 29): each command of the table has a weight, a scope and an example here
// of any size, and its weight grows with the rows its arguments make it write. A command added to the table without
// an example fails the first test, so none is weighed by accident.
import { describe, expect, it } from 'vitest';
import { commandReadAhead, commandScope, commandWeight, commands, type CommandArgs, type CommandName } from '../../src/core/commands.js';
import { sweepParts } from '../../src/core/usecases/holds.js';
import { GROUP_COMMIT_WEIGHT_MAX, HOLD_SWEEP_ROWS_MAX, LARGE_WRITE_WEIGHT, LINES_PER_TRANSACTION_MAX } from '../../src/core/limits.js';
import type { LineInput } from '../../src/core/types.js';
import { EVENT_PRUNE_BATCH } from '../../src/core/commands/events.js';

const actor = { type: 'HUMAN' as const, keyId: 'k' };
const line: LineInput = { accountId: 'a', entryType: 'DEBIT', asset: 'USD', amountMinor: 1n, details: { kind: 'FIAT', rail: 'PIX', bankReference: null }, description: null };
const input = (n: number) => ({ metadata: {}, lines: Array.from({ length: n }, () => line) });
const rendered = (n: number) => ({ transactionId: 't', entryIds: Array.from({ length: n }, () => 'e'), heads: Array.from({ length: n }, () => '{}') });
const transfer = { chain: 'EVM', txHash: '0x1', logIndex: 0, token: 'USDC', tokenContract: '0x2', from: '0x3', to: '0x4', amountMinor: 1n, blockNumber: 1, blockHash: '0x5' } as const;
const plan = (withCandidates: boolean) => ({ transactionId: 't', found: true, onchain: true, candidates: withCandidates ? { byLine: new Map([[0, []]]) } : null });

/** Arguments of each command that make it write about `n` rows' worth where its size can vary; `sized` says whether it can. */
const examples: { [K in CommandName]: { sized: boolean; args: (n: number) => CommandArgs<K> } } = {
  createTenant: { sized: false, args: () => ({ name: 'x', actor }) },
  createApiKey: { sized: false, args: () => ({ tenantId: 't', scopes: ['ADMIN'], actor }) },
  revokeApiKey: { sized: false, args: () => ({ tenantId: 't', keyId: 'k', actor }) },
  updateAccount: { sized: false, args: () => ({ tenantId: 't', accountId: 'a', body: { name: 'x' }, actor }) as never },
  createAccount: { sized: false, args: () => ({ tenantId: 't', body: { name: 'x', currency: 'USD', type: 'ASSET' }, actor }) as never },
  postTransaction: { sized: true, args: (n) => ({ tenantId: 't', actor, input: input(n), rendered: rendered(n), key: 'k', hash: 'h' }) },
  // Its items' lines in all, however many postings carry them.
  postBatch: { sized: true, args: (n) => ({ tenantId: 't', actor, items: [{ index: 0, key: 'a', hash: 'h', input: input(Math.ceil(n / 2)), rendered: null }, { index: 1, key: 'b', hash: 'h', input: input(Math.floor(n / 2)), rendered: null }] }) },
  reverseTransaction: { sized: true, args: (n) => ({ tenantId: 't', actor, transactionId: 'x', originalMetadata: {}, input: input(n), rendered: rendered(n), key: 'k', hash: 'h' }) },
  registerSettlement: { sized: false, args: () => ({ tenantId: 't', actor, input: {} as never, key: 'k', hash: 'h', ttlMs: 1 }) },
  cancelSettlement: { sized: false, args: () => ({ tenantId: 't', actor, settlementId: 's' }) },
  expireSettlements: { sized: true, args: (n) => ({ limit: n }) },
  reconcileBatch: { sized: true, args: (n) => ({ tenantId: 't', actor, plans: Array.from({ length: n }, (_, i) => plan(i % 2 === 0)) as never, before: null }) },
  setWebhook: { sized: false, args: () => ({ tenantId: 't', actor, url: 'https://x' }) },
  recordWebhookAttempt: { sized: false, args: () => ({ state: { tenantId: 't' } as never, redelivery: false }) },
  redeliver: { sized: false, args: () => ({ tenantId: 't', eventId: 'e' }) },
  createPolicyRule: { sized: false, args: () => ({ tenantId: 't', actor, body: {} as never }) },
  deletePolicyRule: { sized: false, args: () => ({ tenantId: 't', actor, ruleId: 'r' }) },
  executeAgentTransaction: { sized: true, args: (n) => ({ tenantId: 't', actor, rawKey: 'r', sessionId: 's', input: input(n), rendered: rendered(n), key: 'k', hash: 'h' }) },
  decideAgentTransaction: { sized: true, args: (n) => ({ tenantId: 't', actor, id: 'x', decision: 'APPROVE', lines: n }) },
  rollbackAgentTransaction: { sized: true, args: (n) => ({ tenantId: 't', actor, id: 'x', lines: n }) },
  recordTransfers: { sized: true, args: (n) => ({ chain: 'EVM', transfers: Array.from({ length: n }, () => transfer), nextBlock: 1 }) },
  // Its size is the batch it may delete, not its arguments: always the most.
  pruneEvents: { sized: false, args: () => ({ tenantId: 't', before: '2000-01-01T00:00:00.000Z' }) },
  setAccountLimits: { sized: false, args: () => ({ tenantId: 't', accountId: 'a', actor, limits: [] }) },
  createHold: { sized: true, args: (n) => ({ tenantId: 't', actor, holdId: 'h', input: input(n), expiresAt: null, key: 'k', hash: 'h', agent: null }) },
  captureHold: { sized: true, args: (n) => ({ tenantId: 't', actor, holdId: 'h', amount: null, key: null, lines: n }) },
  voidHold: { sized: true, args: (n) => ({ tenantId: 't', actor, holdId: 'h', key: null, lines: n }) },
  expireHolds: { sized: true, args: (n) => ({ tenantId: 't', holds: [{ id: 'a', lines: Math.ceil(n / 2) }, { id: 'b', lines: Math.floor(n / 2) }] }) },
  beginStatementImport: { sized: false, args: () => ({ tenantId: 't', accountId: 'a', header: {} as never, leaseMs: 1, windowDaysDefault: 3 }) },
  // Each line of the part, with its matches.
  importStatementPart: { sized: true, args: (n) => ({ tenantId: 't', accountId: 'a', statementId: 's', lines: Array.from({ length: n }, () => ({}) as never), windowDays: 3, leaseMs: 1 }) },
  finishStatementImport: { sized: false, args: () => ({ tenantId: 't', actor, statementId: 's', matches: [] }) },
  // Its entries' match rows, at most STATEMENT_MATCH_ENTRIES_MAX: small whatever it names.
  matchStatementLine: { sized: false, args: () => ({ tenantId: 't', actor, lineId: 'l', entryIds: ['e'], note: null, key: 'k', hash: 'h' }) },
  unmatchStatementLine: { sized: false, args: () => ({ tenantId: 't', actor, lineId: 'l', note: null, key: 'k', hash: 'h' }) },
  ignoreStatementLine: { sized: false, args: () => ({ tenantId: 't', actor, lineId: 'l', note: 'n', key: 'k', hash: 'h' }) },
  // Every line a statement can have: always the most.
  deleteBankStatement: { sized: false, args: () => ({ tenantId: 't', actor, statementId: 's', key: 'k', hash: 'h' }) },
  discardStatementPart: { sized: true, args: (n) => ({ tenantId: 't', statementId: 's', lines: n }) },
  reconcileStatementPart: { sized: true, args: (n) => ({ tenantId: 't', statementId: 's', lineIds: Array.from({ length: n }, () => 'l'), windowDays: 3 }) },
  finishReconcile: { sized: false, args: () => ({ tenantId: 't', actor, statementId: 's', matches: [] }) },
  setReconciliationSettings: { sized: false, args: () => ({ tenantId: 't', actor, accountId: 'a', dateWindowDays: 3 }) },
};

const weight = <K extends CommandName>(name: K, n: number) => commandWeight(name, examples[name].args(n));

describe('command weights', () => {
  it('every command of the table has an example here, and a weight and a scope in the table', () => {
    expect(Object.keys(examples).sort()).toEqual(Object.keys(commands).sort());
    for (const entry of Object.values(commands)) {
      expect(typeof entry.weight).toBe('function');
      expect(typeof entry.scope).toBe('function');
    }
  });

  it.each(Object.keys(examples) as CommandName[])('%s weighs at least one row, and grows with what it writes', (name) => {
    const small = weight(name, 2);
    const large = weight(name, LINES_PER_TRANSACTION_MAX);
    expect(small).toBeGreaterThanOrEqual(1);
    expect(large).toBeGreaterThanOrEqual(small);
    // A command whose size can vary weighs about a row per line (or record) it writes: at its largest it is a large write.
    if (examples[name].sized) expect(large).toBeGreaterThanOrEqual(LINES_PER_TRANSACTION_MAX);
    else expect(large).toBe(small);
  });

  it('a hold of 1000 lines weighs at least 1000 rows when it is made, captured, voided or expires, as a posting of 1000 lines does (not 1)', () => {
    for (const name of ['captureHold', 'voidHold', 'expireHolds', 'createHold', 'postTransaction', 'reverseTransaction'] as const) {
      expect(weight(name, 1000), name).toBeGreaterThanOrEqual(1000);
      expect(weight(name, 1000), name).toBeGreaterThanOrEqual(LARGE_WRITE_WEIGHT);
    }
    // The events it may delete, and the note of how far.
    expect(weight('pruneEvents', 1)).toBe(EVENT_PRUNE_BATCH + 1);
  });

  it("each names what it may change: its tenant, or everything for the commands that span tenants or make one", () => {
    expect(commandScope('postTransaction', examples.postTransaction.args(2))).toBe('t');
    expect(commandScope('expireHolds', examples.expireHolds.args(2))).toBe('t');
    expect(commandScope('recordWebhookAttempt', examples.recordWebhookAttempt.args(1))).toBe('t');
    expect(commandScope('createTenant', examples.createTenant.args(1))).toBe('all');
    expect(commandScope('expireSettlements', examples.expireSettlements.args(1))).toBe('all');
    expect(commandScope('recordTransfers', examples.recordTransfers.args(1))).toBe('all');
    expect(commandReadAhead('postTransaction', examples.postTransaction.args(2))).toMatchObject({ tenantId: 't', idempotency: { keys: ['k'] } });
    // A batch reads every key of its items ahead.
    expect(commandReadAhead('postBatch', examples.postBatch.args(4))).toMatchObject({ tenantId: 't', idempotency: { endpoint: 'POST /api/v1/transactions', keys: ['a', 'b'] } });
    expect(commandReadAhead('captureHold', examples.captureHold.args(2))).toBeUndefined();
  });
});

describe('the hold sweep, in parts bounded in rows', () => {
  const due = (tenantId: string, ...lines: number[]) => lines.map((n, i) => ({ tenantId, id: `${tenantId}-${i}`, lines: n }));
  const rows = (part: { holds: Array<{ lines: number }> }) => part.holds.reduce((sum, h) => sum + h.lines, 0);

  it('parts write at most HOLD_SWEEP_ROWS_MAX rows, a group commit at most', () => {
    expect(HOLD_SWEEP_ROWS_MAX).toBeLessThanOrEqual(GROUP_COMMIT_WEIGHT_MAX);
    const parts = sweepParts(due('t', 400, 400, 400, 2, 2), 1000);
    expect(parts.map((p) => p.holds.map((h) => h.lines))).toEqual([[400, 400], [400, 2, 2]]);
  });

  it('sixty holds of 1000 lines are sixty parts; 500 holds of 2 lines, each releasing 5 rows, are parts of 200', () => {
    expect(sweepParts(due('t', ...Array(60).fill(1000)), HOLD_SWEEP_ROWS_MAX)).toHaveLength(60);
    expect(sweepParts(due('t', ...Array(500).fill(2)), HOLD_SWEEP_ROWS_MAX).map((part) => part.holds.length)).toEqual([200, 200, 100]);
  });

  it('a hold of more lines than the bound goes alone; a part never mixes tenants; the order read is kept', () => {
    const parts = sweepParts([...due('a', 1, 1500, 1), ...due('b', 1)], 1000);
    expect(parts.map((p) => [p.tenantId, p.holds.map((h) => h.id)])).toEqual([
      ['a', ['a-0']],
      ['a', ['a-1']],
      ['a', ['a-2']],
      ['b', ['b-0']],
    ]);
    for (const part of parts) expect(part.holds.length === 1 || rows(part) <= 1000).toBe(true);
  });
});
