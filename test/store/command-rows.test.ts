// A write's weight is what it writes (issue 41): for every command of src/core/commands.ts, realistic operations run
// on the real server, and the rows each wrote are counted from the database (every table read whole before and after,
// test/helpers/tableRows.ts); the weights its commands declared (commandWeight) add up to at least those rows. The
// table of them all is printed at the end, for setting the weights.
//
// The clock is the test's (commits then run on this thread, through the writer every service uses), so that nothing
// expires unless a test moves time on: the hold sweeper sweeps at start only and the settlement sweeper is paused, so
// every command a measurement sees is one its operation caused. Webhook deliveries go to a receiver here that holds
// each request until the test answers it. Time moves on only in the last tests (hold and settlement expiry): a
// redelivery is due at its commit time, which the sender compares with its own clock.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { openTableReader, rowsWritten, type RowsWritten, type TableReader } from '../helpers/tableRows.js';
import { sqlOn } from '../helpers/sql.js';
import { until } from '../helpers/poll.js';
import { TEST_ENGINE } from '../helpers/postgres.js';
import { commands, commandWeight, type CommandArgs, type CommandName, type Writer } from '../../src/core/commands.js';
import type { ObservedTransfer } from '../../src/core/chainWatch.js';
import { cliActor } from '../../src/cli/common.js';
import { HOLD_SWEEP_BATCH_MAX, METADATA_ENTRIES_MAX, SETTLEMENT_SWEEP_BATCH_MAX } from '../../src/core/limits.js';
import { EVENT_PRUNE_BATCH } from '../../src/core/commands/events.js';

const AGENT_PATH = '/api/v1/agent/transactions';
const RULES_PATH = '/api/v1/admin/policy-rules';
const SETTLEMENT_TTL_SECONDS = 600;
/** A condition of raw SQL on the rows of one tenant, by the id the API knows it by. */
const ofTenant = 'tenant_id = (SELECT id FROM tenants WHERE public_id = ?)';

/** `n` metadata entries. */
const metadataOf = (n: number, tag = 'm') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${tag}${i}`, `value ${i} of ${tag}`]));
const usd = (debit: string, credit: string, amount: string) => [fiat(debit, 'DEBIT', amount), fiat(credit, 'CREDIT', amount)];
let walletSeq = 0;
/** An EVM wallet no other test expects anything at. */
const newWallet = () => `0x${(0xa000 + ++walletSeq).toString(16).padStart(40, '0')}`;
let hashSeq = 0;
const newTxHash = () => `0x${(0xb000 + ++hashSeq).toString(16).padStart(64, '0')}`;
const USDC_CONTRACT = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';

interface Ran {
  name: CommandName;
  weight: number;
  done: Promise<void>;
}

/** What one measured operation ran and wrote. */
interface Measured {
  operation: string;
  commands: Array<{ name: CommandName; weight: number }>;
  declared: number;
  rows: RowsWritten;
}

const tableText = (rows: RowsWritten) =>
  Object.keys(rows.byTable).length === 0 ? 'none' : Object.entries(rows.byTable).map(([table, n]) => `${table} ${n}`).join(', ');
const commandsText = (ran: Measured['commands']) => ran.map(({ name, weight }) => `${name} ${weight}`).join(' + ') || 'none';

describe('every command declares a weight of at least the rows it writes', () => {
  let c: Client;
  let r: Receiver;
  let reader: TableReader;
  let restoreWriter: () => void;
  /** The test's clock: real time, plus what the expiry tests move it on by. */
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  /** Every command run on the server's writer since the test started, in the order they were queued. */
  const ran: Ran[] = [];
  const results: Measured[] = [];
  /** The commands the tests below run, known when they are defined (so the coverage test holds alone). */
  const covered = new Set<CommandName>();
  let expireSettlementsDue: (limit: number) => Promise<number>;

  // Webhook deliveries: answered 200 at once, or held while `holding` until the test answers them.
  let holding = false;
  const held: ServerResponse[] = [];
  const release = (status = 200) => held.splice(0).forEach((res) => res.writeHead(status).end(status === 200 ? 'ok' : 'no'));

  beforeAll(async () => {
    r = await startReceiver();
    r.respond = (_request, res) => {
      if (holding) held.push(res);
      else res.writeHead(200).end('ok');
    };
  });
  afterAll(async () => {
    await r?.close();
    if (results.length > 0) console.log(report(results));
  });
  const t = useServerWithAccounts(() => ({
    clock,
    holdSweepIntervalMs: 3_600_000,
    settlementTtlSeconds: SETTLEMENT_TTL_SECONDS,
    webhooks: { allowPrivate: true, ca: r.cert, retry: { delaysMs: [100], windowMs: 60_000 } },
  }));
  beforeAll(async () => {
    c = t.client;
    reader = await openTableReader(t.dbPath);
    // Settlements expire only when a test asks.
    const settlements = t.server.ledger.settlements;
    expireSettlementsDue = settlements.expireDue.bind(settlements);
    settlements.expireDue = async () => 0;
    // The writer every service, worker and the ledger itself run their commands on.
    const writer = t.server.ledger.deps.writer;
    expect(t.server.ledger.writer).toBe(writer);
    const run = writer.run.bind(writer);
    writer.run = (<K extends CommandName>(name: K, args: CommandArgs<K>) => {
      const weight = commandWeight(name, args);
      const result = run(name, args);
      ran.push({ name, weight, done: result.then(() => undefined, () => undefined) });
      return result;
    }) as Writer['run'];
    restoreWriter = () => {
      writer.run = run as Writer['run'];
    };
  });

  afterAll(async () => {
    restoreWriter?.();
    holding = false;
    release();
    await reader?.close();
  });

  /** Waits for every command queued so far (and any they led to) to have committed or failed. */
  async function settle(): Promise<void> {
    for (let n = -1; n !== ran.length; ) {
      n = ran.length;
      await Promise.all(ran.map((x) => x.done));
    }
  }

  /**
   * Runs `act` between two readings of every table, with nothing else under way; checks that it ran exactly the
   * commands `expected` names (in any order), and that their weights add up to at least the rows it wrote.
   */
  async function measure<T>(operation: string, expected: CommandName[], act: (since: () => CommandName[]) => Promise<T>): Promise<T> {
    await settle();
    const before = await reader.snapshot();
    const from = ran.length;
    const since = () => ran.slice(from).map((x) => x.name);
    const result = await act(since);
    await settle();
    const after = await reader.snapshot();
    const mine = ran.slice(from).map(({ name, weight }) => ({ name, weight }));
    const rows = rowsWritten(before, after);
    const declared = mine.reduce((sum, x) => sum + x.weight, 0);
    results.push({ operation, commands: mine, declared, rows });
    expect(mine.map((x) => x.name).sort(), `${operation}: the commands it ran`).toEqual([...expected].sort());
    expect
      .soft(declared, `${operation}: declared weight ${declared} (${commandsText(mine)}) against ${rows.total} rows written (${tableText(rows)})`)
      .toBeGreaterThanOrEqual(rows.total);
    return result;
  }

  /** A test of operations that run these commands (counted for coverage when the test is defined). */
  function operation(name: string, commandsRun: CommandName[], body: () => Promise<void>) {
    for (const command of commandsRun) covered.add(command);
    it(name, body);
  }

  /** Expects `status`, and answers the body. */
  async function ok(pending: Promise<{ status: number; body: any; text: string }>, status: number): Promise<any> {
    const res = await pending;
    expect(res.status, res.text).toBe(status);
    return res.body;
  }

  const key = () => ({ 'idempotency-key': randomUUID() });
  const posted = async (lines: unknown[], metadata?: Record<string, string>) => (await ok(post(c, lines, metadata ? { metadata } : {}), 201)).transactionId as string;
  const hold = (lines: unknown[], expiresAt?: number) =>
    ok(c.post('/api/v1/holds', { lines, ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }) }, key()), 201);
  const register = (accountId: string, amount: string, wallet: string) =>
    ok(c.post('/api/v1/settlements', { accountId, expectedToken: 'USDC', expectedAmount: amount, expectedWalletAddress: wallet, expectedChainId: 'EVM' }, key()), 201);
  /** An ONCHAIN USDC receipt at `wallet` on `account`, balanced by `counter`. */
  const receipt = (account: string, counter: string, amount: string, wallet: string, txHash = newTxHash()) => [
    onchain(account, 'DEBIT', amount, 'USDC', { walletAddress: wallet, txHash }),
    onchain(counter, 'CREDIT', amount, 'USDC', { txHash }),
  ];
  const pair = async () => [await makeAccount(c, { name: 'cash', type: 'ASSET' }), await makeAccount(c, { name: 'deposits', type: 'LIABILITY' })] as const;

  /** 100 accounts of the first tenant (50 ASSET, then 50 LIABILITY), made once, 20 at a time. */
  let pool: Promise<string[]> | undefined;
  const accountPool = () =>
    (pool ??= (async () => {
      const made: string[] = [];
      for (let i = 0; i < 100; i += 20) {
        made.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => makeAccount(c, { name: `pool ${i + j}`, type: i + j < 50 ? 'ASSET' : 'LIABILITY' })))));
      }
      return made;
    })());

  /** 500 two-line postings of `accounts` with 3 metadata entries each, as the items of a batch. */
  const batchItems = (accounts: string[], count = 500) =>
    Array.from({ length: count }, (_, i) => ({
      idempotencyKey: randomUUID(),
      lines: usd(accounts[i % 50]!, accounts[50 + ((i * 7) % 50)]!, '1.00'),
      metadata: metadataOf(3, `b${i}-`),
    }));

  describe('accounts', () => {
    operation('createAccount', ['createAccount', 'createAccount'], async () => {
      await measure('createAccount', ['createAccount'], () => ok(c.post('/api/v1/accounts', { name: 'plain', currency: 'USD', type: 'ASSET' }), 201));
      await measure(`createAccount: ${METADATA_ENTRIES_MAX} metadata entries`, ['createAccount'], () =>
        ok(c.post('/api/v1/accounts', { name: 'described', currency: 'USD', type: 'ASSET', metadata: metadataOf(METADATA_ENTRIES_MAX) }), 201),
      );
    });

    operation('updateAccount with metadata', ['updateAccount'], async () => {
      const id = (await ok(c.post('/api/v1/accounts', { name: 'to update', currency: 'USD', type: 'ASSET', metadata: metadataOf(3) }), 201)).id as string;
      await measure(`updateAccount: 3 metadata entries replaced by ${METADATA_ENTRIES_MAX}`, ['updateAccount'], () =>
        ok(c.request('PATCH', `/api/v1/accounts/${id}`, { body: { name: 'updated', description: 'now with metadata', metadata: metadataOf(METADATA_ENTRIES_MAX, 'u') } }), 200),
      );
    });

    operation('setAccountLimits', ['setAccountLimits', 'setAccountLimits'], async () => {
      const id = await makeAccount(c, { name: 'limited' });
      await measure('setAccountLimits: 1 limit', ['setAccountLimits'], () =>
        ok(c.request('PUT', `/api/v1/accounts/${id}/limits`, { body: { limits: [{ asset: 'USD', min: '0.00', max: '1000000.00' }] } }), 200),
      );
      const limits = ['USD', 'USDC', 'USDT', 'BRZ', 'PYUSD'].map((asset) => ({ asset, min: '-5', max: '1000' }));
      await measure(`setAccountLimits: ${limits.length} limits (the account's currency and every token)`, ['setAccountLimits'], () =>
        ok(c.request('PUT', `/api/v1/accounts/${id}/limits`, { body: { limits } }), 200),
      );
    });
  });

  describe('postings', () => {
    operation('postTransaction: 2 lines and 3 metadata entries', ['postTransaction'], async () => {
      const [cash, deposits] = await pair();
      await measure('postTransaction: 2 lines, 3 metadata entries', ['postTransaction'], () => posted(usd(cash, deposits, '10.00'), metadataOf(3)));
    });

    operation('postTransaction: 1000 lines over 100 accounts and 50 metadata entries', ['postTransaction'], async () => {
      const accounts = await accountPool();
      const lines = Array.from({ length: 500 }, (_, i) => usd(accounts[i % 50]!, accounts[50 + (i % 50)]!, '1.00')).flat();
      expect(lines).toHaveLength(1000);
      await measure('postTransaction: 1000 lines (100 accounts), 50 metadata entries', ['postTransaction'], () => posted(lines, metadataOf(METADATA_ENTRIES_MAX)));
    });

    operation('postTransaction with ONCHAIN lines that settles a registered settlement', ['postTransaction', 'registerSettlement'], async () => {
      const [vault, counter] = await pair();
      const wallet = newWallet();
      const settlement = await measure('registerSettlement', ['registerSettlement'], () => register(vault, '10', wallet));
      await measure('postTransaction: 2 ONCHAIN lines, settling a settlement', ['postTransaction'], () => posted(receipt(vault, counter, '10', wallet)));
      expect((await ok(c.get(`/api/v1/settlements/${settlement.settlementId}`), 200)).status).toBe('SETTLED');
    });

    operation('postBatch: atomic, 500 two-line postings with 3 metadata entries each', ['postBatch'], async () => {
      const accounts = await accountPool();
      const transactions = batchItems(accounts);
      await measure('postBatch: atomic, 500 postings of 2 lines, 3 metadata entries each', ['postBatch'], () =>
        ok(c.post('/api/v1/transactions/batch', { atomic: true, transactions }), 201),
      );
    });

    operation('a batch not atomic: one postTransaction per posting', ['postTransaction'], async () => {
      const [cash, deposits] = await pair();
      const transactions = Array.from({ length: 3 }, (_, i) => ({ idempotencyKey: randomUUID(), lines: usd(cash, deposits, `${i + 1}.00`), metadata: metadataOf(3) }));
      await measure('postTransaction ×3: a batch not atomic, 3 postings of 2 lines, 3 metadata entries each', ['postTransaction', 'postTransaction', 'postTransaction'], () =>
        ok(c.post('/api/v1/transactions/batch', { atomic: false, transactions }), 200),
      );
    });

    operation('reverseTransaction', ['reverseTransaction'], async () => {
      const [cash, deposits] = await pair();
      const id = await posted(usd(cash, deposits, '10.00'), metadataOf(3));
      await measure('reverseTransaction: of 2 lines, 3 metadata entries', ['reverseTransaction'], () =>
        ok(c.request('POST', `/api/v1/transactions/${id}/reverse`, { body: { description: 'refund' }, headers: key() }), 201),
      );
    });
  });

  describe('holds', () => {
    operation('createHold', ['createHold'], async () => {
      const [merchant, wallet] = await pair();
      await measure('createHold: 2 lines', ['createHold'], () => hold(usd(merchant, wallet, '5.00')));
    });

    operation('captureHold: the whole hold', ['captureHold'], async () => {
      const [merchant, wallet] = await pair();
      const { holdId } = await hold(usd(merchant, wallet, '5.00'));
      await measure('captureHold: whole, 2 lines', ['captureHold'], () => ok(c.post(`/api/v1/holds/${holdId}/capture`, {}, key()), 200));
    });

    operation('voidHold', ['voidHold'], async () => {
      const [merchant, wallet] = await pair();
      const { holdId } = await hold(usd(merchant, wallet, '5.00'));
      await measure('voidHold: 2 lines', ['voidHold'], () => ok(c.request('POST', `/api/v1/holds/${holdId}/void`, { headers: key() }), 200));
    });
  });

  describe('settlements and reconciliation', () => {
    operation('cancelSettlement', ['cancelSettlement'], async () => {
      const [vault] = await pair();
      const { settlementId } = await register(vault, '3', newWallet());
      await measure('cancelSettlement', ['cancelSettlement'], () => ok(c.del(`/api/v1/settlements/${settlementId}`), 200));
    });

    operation('reconcileBatch: settled, unmatched, not on chain, not found', ['reconcileBatch'], async () => {
      const [vault, counter] = await pair();
      const wallet = newWallet();
      // Posted before its settlement was registered: only a reconciliation settles it.
      const settles = await posted(receipt(vault, counter, '3', wallet));
      const { settlementId } = await register(vault, '3', wallet);
      const unmatched = await posted(receipt(vault, counter, '4', newWallet()));
      const fiatOnly = await posted(usd(vault, counter, '1.00'));
      const answer = await measure('reconcileBatch: 4 transactions (1 settles)', ['reconcileBatch'], () =>
        ok(c.post('/api/v1/reconciliation/batch', { transactionIds: [settles, unmatched, fiatOnly, randomUUID()] }), 200),
      );
      expect(JSON.stringify(answer)).toContain('SETTLED');
      expect((await ok(c.get(`/api/v1/settlements/${settlementId}`), 200)).status).toBe('SETTLED');
    });

    operation("recordTransfers: a chain watcher's transfers that match and that do not", ['recordTransfers', 'recordTransfers'], async () => {
      const [vault, counter] = await pair();
      const transfer = (to: string, amount: bigint, txHash = newTxHash()): ObservedTransfer => ({
        chain: 'EVM',
        txHash,
        logIndex: 0,
        token: 'USDC',
        tokenContract: USDC_CONTRACT,
        from: '0x00000000000000000000000000000000000000cc',
        to,
        amountMinor: amount,
        blockNumber: 100,
        blockHash: '0xb',
      });
      // Settled by a posting of the ledger's own (crediting the clearing account, made on first use).
      const byService = newWallet();
      const first = await register(vault, '7', byService);
      // Settled by a posting that already records the transfer (posted before the settlement was registered).
      const byPosting = newWallet();
      const recordedHash = newTxHash();
      await posted(receipt(vault, counter, '4', byPosting, recordedHash));
      const second = await register(vault, '4', byPosting);
      // A watched wallet, an amount no settlement expects: recorded, settles nothing.
      const watched = newWallet();
      const waiting = await register(vault, '5', watched);
      const transfers = [transfer(byService, 7_000_000n), transfer(byPosting, 4_000_000n, recordedHash), transfer(watched, 2_000_000n), transfer(newWallet(), 9_000_000n)];
      await measure('recordTransfers: 4 transfers (2 settle, 1 watched unmatched, 1 unwatched)', ['recordTransfers'], () =>
        t.server.ledger.writer.run('recordTransfers', { chain: 'EVM', transfers, nextBlock: 101 }),
      );
      for (const { settlementId } of [first, second]) expect((await ok(c.get(`/api/v1/settlements/${settlementId}`), 200)).status).toBe('SETTLED');
      // Only the checkpoint moves.
      await measure('recordTransfers: none, the checkpoint only', ['recordTransfers'], () => t.server.ledger.writer.run('recordTransfers', { chain: 'EVM', transfers: [], nextBlock: 102 }));
      await ok(c.del(`/api/v1/settlements/${waiting.settlementId}`), 200);
    });
  });

  describe('agents and policy rules', () => {
    let agent: Client | undefined;
    let x: string;
    let y: string;
    let z: string;
    /** An agent key, held for approval above 50, refused from x to z. */
    const agentSetup = async () => {
      if (agent) return agent;
      [x, y] = await pair();
      z = await makeAccount(c, { name: 'forbidden', type: 'LIABILITY' });
      const made = await ok(c.post('/api/v1/api-keys', { scopes: ['AGENTS_EXECUTE'] }), 201);
      await ok(c.post(RULES_PATH, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '50', agentKeyPrefix: made.rawKey }), 201);
      await ok(c.post(RULES_PATH, { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: x, creditAccountId: z, agentKeyPrefix: made.rawKey }), 201);
      return (agent = client(t.url, made.rawKey));
    };
    const execute = (k: Client, lines: unknown[], status: number) =>
      ok(k.request('POST', AGENT_PATH, { body: { lines, metadata: metadataOf(3) }, headers: { ...key(), 'x-agent-session-id': randomUUID() } }), status);

    operation('executeAgentTransaction: posted, held for approval, refused', ['executeAgentTransaction'], async () => {
      const k = await agentSetup();
      await measure('executeAgentTransaction: posted, 2 lines, 3 metadata entries', ['executeAgentTransaction'], () => execute(k, usd(x, y, '10.00'), 201));
      await measure('executeAgentTransaction: held for approval, 2 lines', ['executeAgentTransaction'], () => execute(k, usd(x, y, '60.00'), 202));
      await measure('executeAgentTransaction: refused by a rule', ['executeAgentTransaction'], () => execute(k, usd(x, z, '1.00'), 422));
    });

    operation('decideAgentTransaction: approve', ['decideAgentTransaction'], async () => {
      const k = await agentSetup();
      const { transactionId } = await execute(k, usd(x, y, '60.00'), 202);
      await measure('decideAgentTransaction: approve, 2 lines', ['decideAgentTransaction'], () => ok(c.post(`${AGENT_PATH}/${transactionId}/approve`), 200));
    });

    operation('rollbackAgentTransaction', ['rollbackAgentTransaction'], async () => {
      const k = await agentSetup();
      const { transactionId } = await execute(k, usd(x, y, '10.00'), 201);
      await measure('rollbackAgentTransaction: 2 lines', ['rollbackAgentTransaction'], () => ok(c.post(`${AGENT_PATH}/${transactionId}/rollback`), 201));
    });

    operation('createPolicyRule, deletePolicyRule', ['createPolicyRule', 'deletePolicyRule'], async () => {
      const rule = await measure('createPolicyRule', ['createPolicyRule'], () => ok(c.post(RULES_PATH, { type: 'MAX_DEBIT_PER_HOUR', amount: '1000', agentKeyPrefix: 'sk_none' }), 201));
      await measure('deletePolicyRule', ['deletePolicyRule'], () => ok(c.del(`${RULES_PATH}/${rule.id}`), 204));
    });
  });

  describe('tenants and keys', () => {
    operation('createTenant', ['createTenant'], async () => {
      await measure('createTenant: with its ADMIN key', ['createTenant'], () => t.server.ledger.tenants.create(`Rows ${randomUUID()}`, cliActor));
    });

    operation('createApiKey, revokeApiKey', ['createApiKey', 'revokeApiKey'], async () => {
      const made = await measure('createApiKey', ['createApiKey'], () => ok(c.post('/api/v1/api-keys', { scopes: ['TRANSACTIONS_READ', 'ACCOUNTS_READ'] }), 201));
      await measure('revokeApiKey', ['revokeApiKey'], () => ok(c.del(`/api/v1/api-keys/${made.id}`), 204));
    });
  });

  describe('webhooks', () => {
    /** A tenant of its own (so that its deliveries are the only ones), with a pair of accounts. */
    const webhookTenant = async () => {
      const made = await t.server.ledger.tenants.create(`Hooks ${randomUUID()}`, cliActor);
      const tc = client(t.url, made.apiKey.rawKey);
      const a = await makeAccount(tc, { name: 'cash', type: 'ASSET' });
      const b = await makeAccount(tc, { name: 'deposits', type: 'LIABILITY' });
      return {
        id: made.tenantId,
        c: tc,
        pay: async () => (await ok(post(tc, usd(a, b, '1.00')), 201)).transactionId as string,
        setWebhook: async (path: string) => (await ok(tc.request('PUT', '/api/v1/tenant/webhook', { body: { webhookUrl: `${r.url}${path}` } }), 200)) as unknown,
      };
    };
    type WebhookTenant = Awaited<ReturnType<typeof webhookTenant>>;
    /**
     * Answers what is held and waits until the sender has nothing left to do for the tenant (every event after its
     * webhook delivered, none queued again, nothing held), so that no later measurement meets one of its attempts.
     */
    const idle = async (tenantId: string) => {
      holding = false;
      release();
      await until(`the sender done with ${tenantId}`, async () => {
        const [{ rows: hook }, { rows: last }, { rows: open }] = await Promise.all([
          sqlOn<{ d: unknown }>(t.dbPath, `SELECT delivered_seq AS d FROM webhooks WHERE ${ofTenant}`, [tenantId]),
          sqlOn<{ s: unknown }>(t.dbPath, `SELECT max(seq) AS s FROM outbox WHERE ${ofTenant}`, [tenantId]),
          sqlOn<{ n: unknown }>(t.dbPath, `SELECT count(*) AS n FROM webhook_deliveries WHERE ${ofTenant} AND status <> 'DELIVERED'`, [tenantId]),
        ]);
        const delivered = hook.length === 0 || Number(hook[0]!.d) >= Number(last[0]?.s ?? 0);
        return delivered && Number(open[0]?.n) === 0 && held.length === 0;
      });
      await settle();
    };
    /** A test on a tenant of its own, which it leaves with nothing to deliver, whatever happens. */
    const webhookOperation = (name: string, commandsRun: CommandName[], body: (tn: WebhookTenant) => Promise<void>) =>
      operation(name, commandsRun, async () => {
        const tn = await webhookTenant();
        try {
          await body(tn);
        } finally {
          await idle(tn.id);
        }
      });
    const recorded = (since: () => CommandName[]) => until('the attempt recorded', () => since().includes('recordWebhookAttempt'));

    webhookOperation('setWebhook: the first, and replacing it', ['setWebhook', 'setWebhook'], async (tn) => {
      await tn.pay();
      await measure('setWebhook: the first', ['setWebhook'], () => tn.setWebhook('/first'));
      await measure('setWebhook: replacing it', ['setWebhook'], () => tn.setWebhook('/second'));
    });

    webhookOperation('recordWebhookAttempt: delivered, and failed to be retried', ['recordWebhookAttempt', 'recordWebhookAttempt'], async (tn) => {
      await tn.setWebhook('/attempts');
      holding = true;
      await tn.pay();
      await until('the delivery at the receiver', () => held.length === 1);
      await measure('recordWebhookAttempt: delivered', ['recordWebhookAttempt'], async (since) => {
        release();
        await recorded(since);
      });
      await tn.pay();
      await until('the next delivery at the receiver', () => held.length === 1);
      await measure('recordWebhookAttempt: failed (500), to be retried', ['recordWebhookAttempt'], async (since) => {
        // Its retry comes to the receiver and is held there until the test is done.
        release(500);
        await recorded(since);
      });
    });

    webhookOperation('redeliver, and the redelivered attempt', ['redeliver', 'recordWebhookAttempt'], async (tn) => {
      await tn.setWebhook('/redeliver');
      await tn.pay();
      await idle(tn.id);
      const events = (await ok(tn.c.get('/api/v1/events?limit=200'), 200)).items as Array<{ id: string }>;
      const eventId = events[events.length - 1]!.id;
      holding = true;
      await measure('redeliver: a delivered event', ['redeliver'], () => t.server.ledger.webhooks.redeliver(tn.id, eventId));
      await until('the redelivery at the receiver', () => held.length === 1);
      await measure('recordWebhookAttempt: a redelivery, delivered', ['recordWebhookAttempt'], async (since) => {
        release();
        await recorded(since);
      });
    });
  });

  describe('bank statements', () => {
    const day = () => clock.now().toISOString().slice(0, 10);
    const importCsv = async (accountId: string, csv: string) =>
      (await ok(c.request('POST', `/api/v1/accounts/${accountId}/bank-statements`, { rawBody: csv, headers: { 'content-type': 'text/csv' } }), 201)) as { statementId: string };
    const linesOf = async (statementId: string) => (await ok(c.get(`/api/v1/bank-statements/${statementId}/lines`), 200)).items as Array<{ lineId: string; status: string; candidates: string[] }>;

    operation(
      'bank statements: import (matched by reference, by sum, and not), match, unmatch, ignore, reconcile, settings, delete',
      ['beginStatementImport', 'importStatementPart', 'finishStatementImport', 'matchStatementLine', 'unmatchStatementLine', 'ignoreStatementLine', 'reconcileStatementPart', 'finishReconcile', 'setReconciliationSettings', 'deleteBankStatement', 'discardStatementPart'],
      async () => {
        const [bank, deposits] = await pair();
        await posted([fiat(bank, 'DEBIT', '10.00', 'USD', { bankReference: 'REF-1' }), fiat(deposits, 'CREDIT', '10.00')]);
        for (const amount of ['3.00', '4.00']) await posted([fiat(bank, 'DEBIT', amount, 'USD', { bankReference: 'SUM-1' }), fiat(deposits, 'CREDIT', amount)]);
        // Two of 6.00: the line of 6.00 is ambiguous, matched by hand to one of them.
        for (let i = 0; i < 2; i++) await posted(usd(bank, deposits, '6.00'));
        const csv = `bookingDate,amount,reference\n${day()},10.00,REF-1\n${day()},7.00,SUM-1\n${day()},6.00,X\n${day()},1.00,Y\n`;
        const { statementId } = await measure('import: 4 lines, one part', ['beginStatementImport', 'importStatementPart', 'finishStatementImport'], () => importCsv(bank, csv));
        const [byReference, , ambiguous, fee] = await linesOf(statementId);
        await measure('matchStatementLine: 1 entry', ['matchStatementLine'], () =>
          ok(c.post(`/api/v1/bank-statement-lines/${ambiguous!.lineId}/match`, { entryIds: [ambiguous!.candidates[0]] }, key()), 200),
        );
        await measure('unmatchStatementLine: a REFERENCE match', ['unmatchStatementLine'], () => ok(c.post(`/api/v1/bank-statement-lines/${byReference!.lineId}/unmatch`, {}, key()), 200));
        await measure('ignoreStatementLine', ['ignoreStatementLine'], () => ok(c.post(`/api/v1/bank-statement-lines/${fee!.lineId}/ignore`, { note: 'fee' }, key()), 200));
        await measure('reconcile: the unmatched line matched again', ['reconcileStatementPart', 'finishReconcile'], () => ok(c.post(`/api/v1/bank-statements/${statementId}/reconcile`), 200));
        await measure('setReconciliationSettings', ['setReconciliationSettings'], () =>
          ok(c.request('PUT', `/api/v1/accounts/${bank}/reconciliation-settings`, { body: { dateWindowDays: 5 } }), 200),
        );
        await ok(c.post(`/api/v1/bank-statement-lines/${ambiguous!.lineId}/unmatch`, {}, key()), 200);
        await measure('deleteBankStatement: 4 lines, removed in one part', ['deleteBankStatement', 'discardStatementPart', 'discardStatementPart'], () =>
          ok(c.del(`/api/v1/bank-statements/${statementId}`, key()), 200),
        );
      },
    );
  });

  describe('events', () => {
    operation(`pruneEvents: a batch of ${EVENT_PRUNE_BATCH} events`, ['pruneEvents'], async () => {
      const count = async () => Number((await sqlOn<{ n: unknown }>(t.dbPath, `SELECT count(*) AS n FROM outbox WHERE ${ofTenant}`, [t.tenant.tenantId])).rows[0]!.n);
      const accounts = await accountPool();
      // Alone, this test makes the events it prunes: a batch makes 500.
      for (let i = 0; i < 3 && (await count()) <= EVENT_PRUNE_BATCH; i++) await ok(c.post('/api/v1/transactions/batch', { atomic: true, transactions: batchItems(accounts) }), 201);
      expect(await count()).toBeGreaterThan(EVENT_PRUNE_BATCH);
      const before = new Date(clock.now().getTime() + 1000).toISOString();
      const pruned = await measure(`pruneEvents: a full batch (${EVENT_PRUNE_BATCH} events)`, ['pruneEvents'], () => t.server.ledger.events.prune(t.tenant.tenantId, before));
      expect(pruned).toBe(EVENT_PRUNE_BATCH);
    });
  });

  // Time moves on from here.
  describe('expiry', () => {
    operation('expireHolds: a hold past its expiry', ['expireHolds'], async () => {
      const [merchant, wallet] = await pair();
      await hold(usd(merchant, wallet, '5.00'), clock.now().getTime() + 60_000);
      offsetMs += 61_000;
      const expired = await measure('expireHolds: 1 hold of 2 lines', ['expireHolds'], () => t.server.ledger.holds.expireDue(HOLD_SWEEP_BATCH_MAX));
      expect(expired).toBe(1);
    });

    operation('expireSettlements: a settlement past its expiry', ['expireSettlements'], async () => {
      const [vault] = await pair();
      const { settlementId } = await register(vault, '2', newWallet());
      offsetMs += (SETTLEMENT_TTL_SECONDS + 1) * 1000;
      const expired = await measure(`expireSettlements: 1 settlement (limit ${SETTLEMENT_SWEEP_BATCH_MAX})`, ['expireSettlements'], () =>
        expireSettlementsDue(SETTLEMENT_SWEEP_BATCH_MAX),
      );
      expect(expired).toBe(1);
      expect((await ok(c.get(`/api/v1/settlements/${settlementId}`), 200)).status).toBe('UNMATCHED');
    });
  });

  it('covers every command of src/core/commands.ts', () => {
    expect([...covered].sort()).toEqual(Object.keys(commands).sort());
  });
});

/** The table of what each operation declared and wrote, for setting the weights. */
function report(results: Measured[]): string {
  const rows = results.map((m) => [m.operation, commandsText(m.commands), String(m.declared), String(m.rows.total), m.declared >= m.rows.total ? 'ok' : 'UNDER', tableText(m.rows)]);
  const head = ['operation', 'commands (weight)', 'declared', 'written', '', 'rows per table'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 2 || i === 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(' | ').trimEnd();
  return [`Declared weight against rows written, per operation (${TEST_ENGINE}):`, line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
}
