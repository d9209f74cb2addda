// The request schemas (src/core/schemas.ts) through the edge they are used at (src/core/validate.ts): each rule that
// runs per request, with the message and path a client reads.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import * as s from '../../src/core/schemas.js';
import { parseBodyText, parseWith } from '../../src/core/validate.js';
import { JsonNumber } from '../../src/core/json.js';
import { LedgerError } from '../../src/core/errors.js';

const UUID = '0190A1B2-0000-7000-8000-00000000000A';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    const e = error as LedgerError;
    expect(e.code).toBe('VALIDATION_FAILED');
    return { message: e.message, details: e.details };
  }
  throw new Error('expected a refusal');
};
const body = <S extends v.GenericSchema>(schema: S, value: unknown) => parseBodyText(schema, JSON.stringify(value));
const first = (schema: v.GenericSchema, value: unknown) => refusal(() => body(schema, value)).details![0];

const fiat = { type: 'FIAT', amount: '1', currency: 'USD', rail: 'ACH' };
const chain = { type: 'ONCHAIN', amount: 1, token: 'USDC', chainId: 'EVM', txHash: '0x1', blockNumber: 7, walletAddress: 'w', tokenContract: 'c' };
const line = (monetaryEntry: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ accountId: UUID, entryType: 'DEBIT', monetaryEntry, ...extra });

describe('request schemas', () => {
  it('ids are UUIDs, taken in lower case', () => {
    const parsed = body(s.postTransactionBody, { lines: [line(fiat), line(fiat)] });
    expect(parsed.lines[0]!.accountId).toBe(UUID.toLowerCase());
    expect(first(s.postTransactionBody, { lines: [line(fiat, { accountId: 'x' }), line(fiat)] })).toEqual({ path: 'lines.0.accountId', message: 'must be a UUID' });
  });

  it('names and references must not be blank, and have a maximum length', () => {
    expect(first(s.createAccountBody, { name: '  ', currency: 'USD', type: 'ASSET' })).toEqual({ path: 'name', message: 'must not be blank' });
    expect(body(s.createAccountBody, { name: ' a ', currency: 'USD', type: 'ASSET' }).name).toBe(' a ');
    expect(first(s.createAccountBody, { name: 'x'.repeat(256), currency: 'USD', type: 'ASSET' })).toEqual({ path: 'name', message: 'must be at most 255 characters' });
    expect(body(s.createAccountBody, { name: 'x'.repeat(255), currency: 'USD', type: 'ASSET' }).name).toHaveLength(255);
    expect(first(s.createAccountBody, { name: 'n', description: 'd'.repeat(1025), currency: 'USD', type: 'ASSET' })).toEqual({ path: 'description', message: 'must be at most 1024 characters' });
    expect(first(s.postTransactionBody, { lines: [line({ ...chain, txHash: ' ' }), line(chain)] })).toEqual({ path: 'lines.0.monetaryEntry.txHash', message: 'must not be blank' });
    expect(first(s.createAccountBody, { name: 'n', currency: 'GBP', type: 'ASSET' })).toEqual({ path: 'currency', message: 'must be one of BRL, USD, MXN, EUR' });
    expect(first(s.createAccountBody, { name: 'n', currency: 'USD', type: 'X' })).toEqual({ path: 'type', message: 'must be one of ASSET, LIABILITY, EQUITY, REVENUE, EXPENSE' });
  });

  it('block numbers are non-negative integers of at most 15 digits, as numbers', () => {
    expect(body(s.postTransactionBody, { lines: [line({ ...chain, blockNumber: 123456789012345 }), line(chain)] }).lines[0]!.monetaryEntry).toMatchObject({ blockNumber: 123456789012345 });
    for (const bad of [1.5, -1, 1234567890123456]) {
      expect(first(s.postTransactionBody, { lines: [line({ ...chain, blockNumber: bad }), line(chain)] })).toEqual({ path: 'lines.0.monetaryEntry.blockNumber', message: 'must be a non-negative integer' });
    }
    expect(first(s.postTransactionBody, { lines: [line({ ...chain, blockNumber: '7' }), line(chain)] })).toEqual({ path: 'lines.0.monetaryEntry.blockNumber', message: 'must be a number' });
  });

  it('amounts are a JSON number or a string', () => {
    expect(first(s.postTransactionBody, { lines: [line({ ...fiat, amount: true }), line(fiat)] })).toEqual({ path: 'lines.0.monetaryEntry.amount', message: 'must be a number or a decimal string' });
    expect(body(s.postTransactionBody, { lines: [line({ ...fiat, amount: 1.5 }), line(fiat)] }).lines[0]!.monetaryEntry.amount).toEqual(new JsonNumber('1.5'));
  });

  it('metadata is a map of strings with non-empty keys, at most 50 entries', () => {
    const tx = (metadata: unknown) => ({ lines: [line(fiat), line(fiat)], metadata });
    expect(body(s.postTransactionBody, tx({ a: 'b' })).metadata).toEqual({ a: 'b' });
    expect(first(s.postTransactionBody, tx(null))).toEqual({ path: 'metadata', message: 'must be an object of strings' });
    expect(refusal(() => parseWith(s.metadataSchema, [], 'metadata')).details![0]).toEqual({ path: '', message: 'must be an object of strings' });
    expect(refusal(() => parseWith(s.metadataSchema, 'x', 'metadata')).details![0]!.message).toBe('must be an object of strings');
    expect(first(s.postTransactionBody, tx({ '': 'b' }))).toEqual({ path: 'metadata.', message: 'keys must not be empty' });
    expect(first(s.postTransactionBody, tx({ a: 1 }))!.path).toBe('metadata.a');
    expect(first(s.postTransactionBody, tx(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))))).toEqual({ path: 'metadata', message: 'must have at most 50 entries' });
  });

  it('transactions have 2 to 1000 lines', () => {
    expect(first(s.postTransactionBody, { lines: [line(fiat)] })).toEqual({ path: 'lines', message: 'must have at least 2 lines' });
    expect(first(s.postTransactionBody, { lines: [line(fiat), line({ ...fiat, type: 'X' })] })).toEqual({ path: 'lines.1.monetaryEntry.type', message: 'must have type FIAT or ONCHAIN' });
  });

  it('api keys name 1 to 12 scopes, each once', () => {
    expect(body(s.createApiKeyBody, { scopes: ['ADMIN'] }).scopes).toEqual(['ADMIN']);
    expect(first(s.createApiKeyBody, { scopes: [] })).toEqual({ path: 'scopes', message: 'must name at least one scope' });
    expect(first(s.createApiKeyBody, { scopes: ['ADMIN', 'ADMIN'] })).toEqual({ path: 'scopes', message: 'must not repeat a scope' });
    expect(first(s.createApiKeyBody, { scopes: ['NOPE'] })!.message).toMatch(/^must be one of TRANSACTIONS_READ, /);
  });

  it('queries: instants round as asked, limits are 1 to 200, cursors not empty', () => {
    expect(v.parse(s.entriesQuery, { from: '2030-01-01T00:00:00.0001Z', to: '2030-01-01T00:00:00.0001Z' })).toEqual({
      from: Date.parse('2030-01-01T00:00:00.001Z'),
      to: Date.parse('2030-01-01T00:00:00.000Z'),
    });
    expect(v.parse(s.statementQuery, { from: '2030-01-02', to: '2030-01-03' })).toEqual({ from: Date.parse('2030-01-02'), to: Date.parse('2030-01-03') });
    expect(v.parse(s.auditExportQuery, { from: '2030-01-01T00:00:00.0001Z', to: '2030-01-01T00:00:00.0001Z' })).toEqual({
      from: Date.parse('2030-01-01T00:00:00.001Z'),
      to: Date.parse('2030-01-01T00:00:00.001Z'),
    });
    expect(v.parse(s.balanceQuery, { asOf: '2030-01-01T00:00:00.0009Z' })).toEqual({ asOf: Date.parse('2030-01-01T00:00:00.000Z') });
    expect(refusal(() => parseWith(s.statementQuery, { from: 'yesterday', to: '2030-01-01' }, 'query')).details![0]).toEqual({ path: 'from', message: 'must be an ISO 8601 instant' });
    expect(refusal(() => parseWith(s.statementQuery, { from: 5, to: '2030-01-01' }, 'query')).details![0]).toEqual({ path: 'from', message: 'is required' });
    // Outside the years 0001 to 9999 once the offset is applied: one detail, naming the range, and not also "not ISO 8601".
    const range = 'must be from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, once its offset is applied';
    expect(refusal(() => parseWith(s.statementQuery, { from: '2030-01-01', to: '9999-12-31T23:59:59-14:00' }, 'query')).details).toEqual([{ path: 'to', message: range }]);
    expect(refusal(() => parseWith(s.balanceQuery, { asOf: '0000-02-29' }, 'query')).details).toEqual([{ path: 'asOf', message: range }]);
    expect(refusal(() => parseWith(s.trialBalanceQuery, { asOf: '0001-01-01T00:00:00+01:00' }, 'query')).details).toEqual([{ path: 'asOf', message: range }]);
    expect(v.parse(s.pageQuery, { limit: '200' })).toEqual({ limit: 200 });
    expect(v.parse(s.pageQuery, { limit: '1' })).toEqual({ limit: 1 });
    for (const bad of ['0', '201', '1.5', '-1', '12345']) expect(refusal(() => parseWith(s.pageQuery, { limit: bad }, 'query')).details![0]).toEqual({ path: 'limit', message: 'must be an integer from 1 to 200' });
    expect(refusal(() => parseWith(s.pageQuery, { cursor: '' }, 'query')).details![0]).toEqual({ path: 'cursor', message: 'must not be empty' });
    expect(refusal(() => parseWith(s.settlementsQuery, { status: 'DONE' }, 'query')).details![0]!.message).toBe('must be one of PENDING, SETTLED, UNMATCHED, CANCELLED');
    expect(refusal(() => parseWith(s.agentTransactionsQuery, { status: 'DONE' }, 'query')).details![0]!.message).toBe('must be one of POSTED, PENDING_APPROVAL, REJECTED, ROLLED_BACK');
    expect(refusal(() => parseWith(s.auditExportQuery, { from: '2030-01-01', to: '2030-01-02', type: 'X' }, 'query')).details![0]!.message).toBe('must be one of HUMAN, AGENT, ALL');
  });

  it('idempotency keys and agent session ids are 1 to 255 characters', () => {
    expect(v.parse(s.idempotencyKeySchema, 'k'.repeat(255))).toHaveLength(255);
    expect(refusal(() => parseWith(s.idempotencyKeySchema, '', 'header')).details![0]!.message).toBe('must not be empty');
    expect(refusal(() => parseWith(s.idempotencyKeySchema, 'k'.repeat(256), 'header')).details![0]!.message).toBe('must be at most 255 characters');
    expect(refusal(() => parseWith(s.idempotencyKeySchema, undefined, 'header')).details![0]!.message).toBe('is required');
    expect(refusal(() => parseWith(s.agentSessionIdSchema, '', 'header')).details![0]!.message).toBe('must not be empty');
    expect(refusal(() => parseWith(s.agentSessionIdSchema, 'k'.repeat(256), 'header')).details![0]!.message).toBe('must be at most 255 characters');
  });

  it('settlements: a positive decimal string amount, a known token and chain, a sender not blank', () => {
    const ok = { accountId: UUID, expectedToken: 'USDC', expectedAmount: '10.50', expectedWalletAddress: 'w', expectedChainId: 'EVM' };
    expect(body(s.registerSettlementBody, ok)).toEqual({ ...ok, accountId: UUID.toLowerCase() });
    expect(first(s.registerSettlementBody, { ...ok, expectedAmount: 10.5 })).toEqual({ path: 'expectedAmount', message: 'must be a decimal string such as "10.50"' });
    for (const bad of ['-1', '1e3', '.5', '1.', ' 1']) expect(first(s.registerSettlementBody, { ...ok, expectedAmount: bad })!.message).toBe('must be a positive decimal string such as "10.50"');
    expect(first(s.registerSettlementBody, { ...ok, expectedToken: '' })).toEqual({ path: 'expectedToken', message: 'must not be empty' });
    expect(first(s.registerSettlementBody, { ...ok, expectedToken: 1 })).toEqual({ path: 'expectedToken', message: 'must be a string' });
    expect(first(s.registerSettlementBody, { ...ok, expectedToken: 'DAI' })).toEqual({ path: 'expectedToken', message: 'must be one of USDC, USDT, BRZ, PYUSD' });
    expect(first(s.registerSettlementBody, { ...ok, expectedChainId: 'BTC' })).toEqual({ path: 'expectedChainId', message: 'must be one of EVM, SOLANA, TRON' });
    expect(first(s.registerSettlementBody, { ...ok, expectedFromAddress: ' ' })).toEqual({ path: 'expectedFromAddress', message: 'must not be blank' });
    expect(body(s.registerSettlementBody, { ...ok, expectedFromAddress: null }).expectedFromAddress).toBeNull();
  });

  it('reconciliation batches hold 1 to 100 transaction ids', () => {
    expect(first(s.reconciliationBatchBody, { transactionIds: [] })).toEqual({ path: 'transactionIds', message: 'must have at least 1 id' });
    expect(first(s.reconciliationBatchBody, { transactionIds: 'x' })!.message).toBe('must be an array of transaction ids');
    expect(body(s.reconciliationBatchBody, { transactionIds: [UUID] }).transactionIds).toEqual([UUID.toLowerCase()]);
  });

  it('a webhook URL is a non-empty string', () => {
    expect(first(s.setWebhookBody, { webhookUrl: '  ' })).toEqual({ path: 'webhookUrl', message: 'must not be empty' });
    expect(first(s.setWebhookBody, { webhookUrl: 1 })).toEqual({ path: 'webhookUrl', message: 'must be a string' });
    expect(body(s.setWebhookBody, { webhookUrl: 'https://x' })).toEqual({ webhookUrl: 'https://x' });
  });

  it('policy rules: a positive amount, unique non-empty token and chain lists, a prefix not empty', () => {
    expect(body(s.createPolicyRuleBody, { type: 'MAX_DEBIT_PER_HOUR', amount: '0.01' })).toEqual({ type: 'MAX_DEBIT_PER_HOUR', amount: '0.01' });
    expect(first(s.createPolicyRuleBody, { type: 'MAX_DEBIT_PER_HOUR', amount: '0.00' })).toEqual({ path: 'amount', message: 'must be greater than zero' });
    expect(first(s.createPolicyRuleBody, { type: 'MAX_DEBIT_PER_HOUR', amount: '1e3' })).toEqual({ path: 'amount', message: 'must be a positive decimal string such as "100.00"' });
    expect(first(s.createPolicyRuleBody, { type: 'MAX_DEBIT_PER_HOUR', amount: 5 })).toEqual({ path: 'amount', message: 'must be a decimal string such as "100.00"' });
    expect(first(s.createPolicyRuleBody, { type: 'ALLOWED_TOKENS', tokens: [] })).toEqual({ path: 'tokens', message: 'must name at least one of USDC, USDT, BRZ, PYUSD' });
    expect(first(s.createPolicyRuleBody, { type: 'ALLOWED_TOKENS', tokens: ['USDC', 'USDC'] })).toEqual({ path: 'tokens', message: 'must not repeat a value' });
    expect(first(s.createPolicyRuleBody, { type: 'ALLOWED_CHAINS', chains: 'EVM' })).toEqual({ path: 'chains', message: 'must be an array of EVM, SOLANA, TRON' });
    expect(first(s.createPolicyRuleBody, { type: 'ALLOWED_CHAINS', chains: ['BTC'] })).toEqual({ path: 'chains.0', message: 'must be one of EVM, SOLANA, TRON' });
    expect(body(s.createPolicyRuleBody, { type: 'ALLOWED_CHAINS', chains: ['EVM', 'TRON'] }).chains).toEqual(['EVM', 'TRON']);
    expect(first(s.createPolicyRuleBody, { type: 'ALLOWED_CHAINS', agentKeyPrefix: '' })).toEqual({ path: 'agentKeyPrefix', message: 'must not be empty' });
    expect(first(s.createPolicyRuleBody, { type: 'X' })!.message).toMatch(/^must be one of MAX_DEBIT_PER_SESSION, /);
  });
});
