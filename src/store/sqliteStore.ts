// The Store port over SQLite: every query is built with Kysely and prepared once.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { Account, ApiKey, Entry, EntryViewPage, Tenant, TransactionRecord } from '../core/types.js';
import type {
  AuditInsert,
  KeyPosition,
  OutboxInsert,
  Rows,
  SettlementFilter,
  SettlementMatchFields,
  SettlementTarget,
  Store,
  StoredAuditRecord,
  StoredIdempotency,
  WriteTx,
} from '../core/ports.js';
import { canonicalAddress, canonicalTxHash, type ReconciliationResult, type Settlement } from '../core/settlement.js';
import type { ActorType } from '../core/audit.js';
import type { DeliveryState, OutboxEvent, Webhook } from '../core/webhook.js';
import type { PolicyRule } from '../core/policy.js';
import { inputFromJson, inputToJson, type AgentStatus, type AgentTransaction } from '../core/agent.js';
import type { ChainCheckpoint, ObservedTransfer, WatchedWallet } from '../core/chainWatch.js';
import { tokens, type Asset, type Chain, type Token } from '../core/money.js';
import type { Scope } from '../core/scopes.js';
import type { Database } from './schema.js';
import { durabilityOf, openDatabase, type SqliteDb } from './sqlite.js';
import { param, type Preparer } from './sql/statement.js';
import { sqlitePreparer } from './sqlite/statement.js';
import { countWithinAnswer } from '../core/paging.js';

// Upper bounds for keyset positions when a list starts at its newest row.
const TIME_MAX = '9999-12-31T23:59:59.999Z~';
const TIME_MIN = '';
const SEQ_MAX = 2n ** 62n;
const ACCOUNT_CACHE_MAX = 100_000;

type Row<T> = Selectable<T>;

const toApiKey = (r: Row<Database['api_keys']>): ApiKey => ({
  id: r.id,
  tenantId: r.tenant_id,
  prefix: r.prefix,
  scopes: JSON.parse(r.scopes) as Scope[],
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

const toAccount = (r: Row<Database['accounts']>): Account => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  description: r.description,
  currency: r.currency as Account['currency'],
  type: r.type as Account['type'],
  createdAt: r.created_at,
  seq: Number(r.seq),
});

const toEntry = (r: Row<Database['entries']>): Entry => ({
  id: r.id,
  seq: Number(r.seq),
  tenantId: r.tenant_id,
  transactionId: r.transaction_id,
  accountId: r.account_id,
  lineNo: Number(r.line_no),
  entryType: r.entry_type as Entry['entryType'],
  asset: r.asset as Asset,
  amountMinor: BigInt(r.amount),
  details: JSON.parse(r.details) as Entry['details'],
  description: r.description,
  createdAt: r.created_at,
  balanceAfterMinor: BigInt(r.balance_after),
});

const toTransaction = (r: Row<Database['transactions']>): TransactionRecord => ({
  id: r.id,
  tenantId: r.tenant_id,
  seq: Number(r.seq),
  document: r.document,
  createdAt: r.created_at,
});

const toSettlement = (r: Row<Database['settlements']>): Settlement => ({
  id: r.id,
  tenantId: r.tenant_id,
  seq: Number(r.seq),
  accountId: r.account_id,
  token: r.token as Settlement['token'],
  amountText: r.amount_text,
  amountMinor: BigInt(r.amount),
  chain: r.chain as Settlement['chain'],
  walletAddress: r.wallet_address,
  fromAddress: r.from_address,
  status: r.status as Settlement['status'],
  matchedTransactionId: r.matched_transaction_id,
  matchedLineNo: r.matched_line_no === null ? null : Number(r.matched_line_no),
  txHash: r.tx_hash,
  blockNumber: r.block_number === null ? null : Number(r.block_number),
  confirmedAt: r.confirmed_at,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
});

const toStoredAudit = (r: Row<Database['audit_log']>): StoredAuditRecord => ({
  seq: Number(r.seq),
  id: r.id,
  type: r.type as ActorType,
  action: r.action as StoredAuditRecord['action'],
  actorKeyId: r.actor_key_id,
  occurredAt: r.occurred_at,
  payloadJson: r.payload,
  prevHash: r.prev_hash,
  hash: r.hash,
});

const toWebhook = (r: Row<Database['webhooks']>): Webhook => ({
  tenantId: r.tenant_id,
  url: r.url,
  secret: r.secret,
  startSeq: Number(r.start_seq),
  deliveredSeq: Number(r.delivered_seq),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toOutboxEvent = (r: Omit<Row<Database['outbox']>, 'transaction_id'>): OutboxEvent => ({
  seq: Number(r.seq),
  id: r.id,
  tenantId: r.tenant_id,
  type: r.type,
  payload: r.payload,
  createdAt: r.created_at,
});

const toDelivery = (r: Row<Database['webhook_deliveries']>): DeliveryState & { seq: number } => ({
  seq: Number(r.seq),
  tenantId: r.tenant_id,
  eventId: r.event_id,
  eventSeq: Number(r.event_seq),
  type: r.type,
  status: r.status as DeliveryState['status'],
  attempts: Number(r.attempts),
  lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
  lastError: r.last_error,
  firstAttemptAt: r.first_attempt_at,
  nextAttemptAt: r.next_attempt_at,
  updatedAt: r.updated_at,
});

const toPolicyRule = (r: Row<Database['policy_rules']>): PolicyRule => ({
  id: r.id,
  tenantId: r.tenant_id,
  type: r.type as PolicyRule['type'],
  agentKeyPrefix: r.agent_key_prefix,
  params: JSON.parse(r.params) as PolicyRule['params'],
  createdAt: r.created_at,
});

const toAgentTransaction = (r: Row<Database['agent_transactions']>): AgentTransaction => ({
  id: r.id,
  tenantId: r.tenant_id,
  seq: Number(r.seq),
  status: r.status as AgentStatus,
  sessionId: r.session_id,
  actorKeyId: r.actor_key_id,
  input: inputFromJson(r.input),
  createdAt: r.created_at,
  decidedAt: r.decided_at,
  decidedBy: r.decided_by,
  reversalTransactionId: r.reversal_transaction_id,
});

/** Agent transactions that count toward the limits: posted (even if rolled back since) and held. */
const COUNTED_STATUSES = ['POSTED', 'PENDING_APPROVAL', 'ROLLED_BACK'];

/** Rows mapped as they are read: the caller stops reading where its page ends (core/paging.ts). */
async function* lazy<R, T>(rows: Iterable<R> | Promise<Iterable<R>>, map: (row: R) => T): AsyncGenerator<T> {
  for (const row of await rows) yield map(row);
}

/** A tenant's events with their bodies: a `transaction.committed` event's body is its transaction's document. */
const outboxEvents = (q: Kysely<Database>) =>
  q
    .selectFrom('outbox as o')
    .leftJoin('transactions as t', (join) => join.onRef('t.tenant_id', '=', 'o.tenant_id').onRef('t.id', '=', 'o.transaction_id'))
    .select(['o.seq', 'o.id', 'o.tenant_id', 'o.type', 'o.created_at', (eb) => eb.fn.coalesce('t.document', 'o.payload').as('payload')])
    .where('o.tenant_id', '=', param('tenantId'));

function statements(prepare: Preparer) {
  const p = <R>(build: (qb: Kysely<Database>) => import('kysely').Compilable<R>) => prepare<R>(build);
  const tenant = param('tenantId');
  const account = param('accountId');
  /** Entries of one account within a time range and before a keyset position, newest first. */
  const entriesWindow = (q: Kysely<Database>) =>
    q
      .selectFrom('entries')
      .where('tenant_id', '=', tenant)
      .where('account_id', '=', account)
      // The keyset bound is folded into the range on created_at, so the index seeks straight to the cursor
      // (a row-value comparison alone is not used as a range, and page 10,000 would scan 500,000 rows).
      .where('created_at', '>=', param('from'))
      .where('created_at', '<=', param('upTo'))
      .where((eb) => eb.or([eb('created_at', '<', param('beforeTime')), eb('seq', '<', param<bigint>('beforeSeq'))]))
      .orderBy('created_at', 'desc')
      .orderBy('seq', 'desc');
  /** The running balance after the last entry of an asset before (or at) an instant: one index seek. */
  const balanceAt = (op: '<' | '<=') =>
    p((q) =>
      q
        .selectFrom('entries')
        .select('balance_after')
        .where('tenant_id', '=', tenant)
        .where('account_id', '=', account)
        .where('asset', '=', param('asset'))
        .where('created_at', op, param('at'))
        .orderBy('created_at', 'desc')
        .orderBy('seq', 'desc')
        .limit(1),
    );
  const settlementsWindow = (q: Kysely<Database>) =>
    q
      .selectFrom('settlements')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('created_at', '>=', param('from'))
      .where('created_at', '<=', param('to'))
      .where('seq', '<', param<bigint>('before'))
      .orderBy('seq', 'desc')
      .limit(param<number>('limit'));
  const agentWindow = (q: Kysely<Database>) =>
    q
      .selectFrom('agent_transactions')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('seq', '<', param<bigint>('before'))
      .orderBy('seq', 'desc')
      .limit(param<number>('limit'));
  return {
    tenant: p((q) => q.selectFrom('tenants').selectAll().where('id', '=', tenant)),
    insertTenant: p((q) => q.insertInto('tenants').values({ id: param('id'), name: param('name'), created_at: param('createdAt') })),
    apiKeyByHash: p((q) => q.selectFrom('api_keys').selectAll().where('key_hash', '=', param('keyHash'))),
    apiKey: p((q) => q.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('keyId'))),
    apiKeys: p((q) => q.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenant).orderBy('seq', 'desc')),
    insertApiKey: p((q) =>
      q.insertInto('api_keys').values({
        tenant_id: tenant,
        id: param('id'),
        key_hash: param('keyHash'),
        prefix: param('prefix'),
        scopes: param('scopes'),
        created_at: param('createdAt'),
      }),
    ),
    revokeApiKey: p((q) =>
      q
        .updateTable('api_keys')
        .set({ revoked_at: param('revokedAt') })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('keyId'))
        .where('revoked_at', 'is', null),
    ),
    account: p((q) => q.selectFrom('accounts').selectAll().where('tenant_id', '=', tenant).where('id', '=', account)),
    accountsPage: p((q) =>
      q
        .selectFrom('accounts')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
    insertAccount: p((q) =>
      q.insertInto('accounts').values({
        tenant_id: tenant,
        id: param('id'),
        name: param('name'),
        description: param('description'),
        currency: param('currency'),
        type: param('type'),
        created_at: param('createdAt'),
      }),
    ),
    balances: p((q) => q.selectFrom('balances').select(['asset', 'balance']).where('tenant_id', '=', tenant).where('account_id', '=', account)),
    balance: p((q) =>
      q.selectFrom('balances').select('balance').where('tenant_id', '=', tenant).where('account_id', '=', account).where('asset', '=', param('asset')),
    ),
    setBalance: p((q) =>
      q
        .insertInto('balances')
        .values({ tenant_id: tenant, account_id: account, asset: param('asset'), balance: param('balance') })
        .onConflict((oc) => oc.columns(['tenant_id', 'account_id', 'asset']).doUpdateSet({ balance: (eb) => eb.ref('excluded.balance') })),
    ),
    balanceAtInclusive: balanceAt('<='),
    balanceAtExclusive: balanceAt('<'),
    // A page is read as its views alone (one string a row is far cheaper than a row object), and the keyset
    // position of its last row by a second, covering seek.
    entryViews: prepare<string>((q) => entriesWindow(q).select('view').limit(param<number>('limit')), { pluck: true }),
    entryPosition: p((q) => entriesWindow(q).select(['created_at', 'seq']).limit(1).offset(param<number>('offset'))),
    entriesBetween: p((q) =>
      q
        .selectFrom('entries')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('account_id', '=', account)
        .where('asset', '=', param('asset'))
        .where('created_at', '>=', param('from'))
        .where('created_at', '<=', param('to'))
        .orderBy('created_at', 'asc')
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    insertEntry: p((q) =>
      q.insertInto('entries').values({
        tenant_id: tenant,
        id: param('id'),
        transaction_id: param('transactionId'),
        account_id: account,
        line_no: param<bigint>('lineNo'),
        entry_type: param('entryType'),
        asset: param('asset'),
        amount: param('amount'),
        details: param('details'),
        description: param('description'),
        created_at: param('createdAt'),
        balance_after: param('balanceAfter'),
        view: param('view'),
      }),
    ),
    transaction: p((q) => q.selectFrom('transactions').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('transactionId'))),
    transactionsPage: p((q) =>
      q
        .selectFrom('transactions')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
    insertTransaction: p((q) =>
      q.insertInto('transactions').values({ tenant_id: tenant, id: param('id'), document: param('document'), created_at: param('createdAt') }),
    ),
    // Every write appends an audit record, so the newest record carries the last commit time.
    lastCommitTime: p((q) => q.selectFrom('audit_log').select('occurred_at').orderBy('seq', 'desc').limit(1)),
    idempotency: p((q) =>
      q
        .selectFrom('idempotency')
        .select(['request_hash', 'status', 'body'])
        .where('tenant_id', '=', tenant)
        .where('endpoint', '=', param('endpoint'))
        .where('key', '=', param('key')),
    ),
    insertIdempotency: p((q) =>
      q.insertInto('idempotency').values({
        tenant_id: tenant,
        endpoint: param('endpoint'),
        key: param('key'),
        request_hash: param('requestHash'),
        status: param<bigint>('status'),
        body: param('body'),
        created_at: param('createdAt'),
      }),
    ),
    lastAuditHash: p((q) => q.selectFrom('audit_log').select('hash').where('tenant_id', '=', tenant).orderBy('seq', 'desc').limit(1)),
    appendAudit: p((q) =>
      q.insertInto('audit_log').values({
        tenant_id: tenant,
        id: param('id'),
        type: param('type'),
        action: param('action'),
        actor_key_id: param('actorKeyId'),
        occurred_at: param('occurredAt'),
        payload: param('payload'),
        prev_hash: param<string | null>('prevHash'),
        hash: param('hash'),
      }),
    ),
    insertOutbox: p((q) =>
      q.insertInto('outbox').values({
        tenant_id: tenant,
        id: param('id'),
        type: param('type'),
        payload: param('payload'),
        created_at: param('createdAt'),
        transaction_id: param('transactionId'),
      }),
    ),
    settlement: p((q) => q.selectFrom('settlements').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('settlementId'))),
    // Newest first, on the tenant-sequence index; with a status, on the tenant-status-sequence index.
    settlementsPage: p((q) => settlementsWindow(q)),
    settlementsPageByStatus: p((q) => settlementsWindow(q).where('status', '=', param('status'))),
    pendingSettlements: p((q) =>
      q
        .selectFrom('settlements')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('account_id', '=', account)
        .where('status', '=', 'PENDING')
        .where('token', '=', param('token'))
        .where('amount', '=', param('amount'))
        .where('chain', '=', param('chain'))
        .where('wallet_canonical', '=', param('walletCanonical'))
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    // The same literal token list as the partial index (0006), so that SQLite can use it.
    onchainEntries: p((q) =>
      q
        .selectFrom('entries')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('transaction_id', '=', param('transactionId'))
        .where('asset', 'in', tokens.map((token) => sql.lit(token)))
        .orderBy('line_no', 'asc'),
    ),
    hasTransaction: p((q) => q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('id', '=', param('transactionId'))),
    settlementsMatchedTo: p((q) =>
      q
        .selectFrom('settlements')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('matched_transaction_id', '=', param('transactionId'))
        .orderBy('matched_line_no', 'asc'),
    ),
    tenantIds: p((q) => q.selectFrom('tenants').select('id').orderBy('seq', 'asc')),
    firstExpiry: p((q) =>
      q
        .selectFrom('settlements')
        .select('expires_at')
        .where('tenant_id', '=', tenant)
        .where('status', '=', 'PENDING')
        .orderBy('expires_at', 'asc')
        .limit(1),
    ),
    expiredSettlements: p((q) =>
      q
        .selectFrom('settlements')
        .select(['tenant_id', 'id'])
        .where('tenant_id', '=', tenant)
        .where('status', '=', 'PENDING')
        .where('expires_at', '<=', param('at'))
        .orderBy('expires_at', 'asc')
        .limit(param<number>('limit')),
    ),
    insertSettlement: p((q) =>
      q.insertInto('settlements').values({
        tenant_id: tenant,
        id: param('id'),
        account_id: account,
        token: param('token'),
        amount_text: param('amountText'),
        amount: param('amount'),
        chain: param('chain'),
        wallet_address: param('walletAddress'),
        wallet_canonical: param('walletCanonical'),
        from_address: param<string | null>('fromAddress'),
        from_canonical: param<string | null>('fromCanonical'),
        status: 'PENDING',
        expires_at: param('expiresAt'),
        created_at: param('createdAt'),
      }),
    ),
    settleSettlement: p((q) =>
      q
        .updateTable('settlements')
        .set({
          status: 'SETTLED',
          matched_transaction_id: param('transactionId'),
          matched_line_no: param<bigint>('lineNo'),
          tx_hash: param('txHash'),
          block_number: param<bigint>('blockNumber'),
          confirmed_at: param('confirmedAt'),
          expires_at: null,
        })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('settlementId'))
        .where('status', '=', 'PENDING'),
    ),
    closeSettlement: p((q) =>
      q
        .updateTable('settlements')
        .set({ status: param('status'), expires_at: null })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('settlementId'))
        .where('status', '=', 'PENDING'),
    ),
    insertReconciliationResult: p((q) =>
      q.insertInto('reconciliation_results').values({
        tenant_id: tenant,
        transaction_id: param('transactionId'),
        outcome: param('outcome'),
        settlement_id: param<string | null>('settlementId'),
        source: param('source'),
        reconciled_at: param('reconciledAt'),
      }),
    ),
    reconciliationResultsPage: p((q) =>
      q
        .selectFrom('reconciliation_results')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
    // Commit order within the window: the keyset (occurred_at, seq) walks the tenant-time index. The keyset's time is
    // folded into the range's lower bound, so each page seeks straight to where the last one ended.
    auditPage: p((q) =>
      q
        .selectFrom('audit_log')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('occurred_at', '>=', param('lower'))
        .where('occurred_at', '<', param('to'))
        .where((eb) => eb.or([eb('occurred_at', '>', param('afterTime')), eb('seq', '>', param<bigint>('afterSeq'))]))
        .where((eb) => eb.or([eb(eb.val(param('type')), '=', '*'), eb('type', '=', param('type'))]))
        .orderBy('occurred_at', 'asc')
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    auditChainPage: p((q) =>
      q
        .selectFrom('audit_log')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '>', param<bigint>('afterSeq'))
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    webhook: p((q) => q.selectFrom('webhooks').selectAll().where('tenant_id', '=', tenant)),
    webhooks: p((q) => q.selectFrom('webhooks').selectAll().orderBy('tenant_id')),
    upsertWebhook: p((q) =>
      q
        .insertInto('webhooks')
        .values({
          tenant_id: tenant,
          url: param('url'),
          secret: param('secret'),
          start_seq: param<bigint>('startSeq'),
          delivered_seq: param<bigint>('deliveredSeq'),
          created_at: param('createdAt'),
          updated_at: param('updatedAt'),
        })
        .onConflict((oc) =>
          oc.column('tenant_id').doUpdateSet({ url: (eb) => eb.ref('excluded.url'), secret: (eb) => eb.ref('excluded.secret'), updated_at: (eb) => eb.ref('excluded.updated_at') }),
        ),
    ),
    setWebhookDelivered: p((q) =>
      q.updateTable('webhooks').set({ delivered_seq: param<bigint>('eventSeq') }).where('tenant_id', '=', tenant).where('delivered_seq', '<', param<bigint>('eventSeq')),
    ),
    outboxAfter: p((q) => outboxEvents(q).where('o.seq', '>', param<bigint>('afterSeq')).orderBy('o.seq', 'asc').limit(1),
    ),
    outboxEvent: p((q) => outboxEvents(q).where('o.id', '=', param('eventId'))),
    lastOutboxSeq: p((q) => q.selectFrom('outbox').select('seq').where('tenant_id', '=', tenant).orderBy('seq', 'desc').limit(1)),
    webhookDelivery: p((q) => q.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', tenant).where('event_id', '=', param('eventId'))),
    queuedRedelivery: p((q) =>
      q.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', tenant).where('status', '=', 'QUEUED').orderBy('event_seq', 'asc').limit(1),
    ),
    webhookDeliveriesPage: p((q) =>
      q
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
    upsertWebhookDelivery: p((q) =>
      q
        .insertInto('webhook_deliveries')
        .values({
          tenant_id: tenant,
          event_id: param('eventId'),
          event_seq: param<bigint>('eventSeq'),
          type: param('type'),
          status: param('status'),
          attempts: param<bigint>('attempts'),
          last_status_code: param<bigint | null>('lastStatusCode'),
          last_error: param<string | null>('lastError'),
          first_attempt_at: param<string | null>('firstAttemptAt'),
          next_attempt_at: param<string | null>('nextAttemptAt'),
          updated_at: param('updatedAt'),
        })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'event_id']).doUpdateSet({
            status: (eb) => eb.ref('excluded.status'),
            attempts: (eb) => eb.ref('excluded.attempts'),
            last_status_code: (eb) => eb.ref('excluded.last_status_code'),
            last_error: (eb) => eb.ref('excluded.last_error'),
            first_attempt_at: (eb) => eb.ref('excluded.first_attempt_at'),
            next_attempt_at: (eb) => eb.ref('excluded.next_attempt_at'),
            updated_at: (eb) => eb.ref('excluded.updated_at'),
          }),
        ),
    ),
    wakeWebhookDeliveries: p((q) =>
      q
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: param('at') })
        .where('tenant_id', '=', tenant)
        .where('status', 'in', ['PENDING', 'QUEUED']),
    ),
    policyRules: p((q) => q.selectFrom('policy_rules').selectAll().where('tenant_id', '=', tenant).orderBy('seq', 'asc')),
    insertPolicyRule: p((q) =>
      q.insertInto('policy_rules').values({
        tenant_id: tenant,
        id: param('id'),
        type: param('type'),
        agent_key_prefix: param<string | null>('agentKeyPrefix'),
        params: param('params'),
        created_at: param('createdAt'),
      }),
    ),
    deletePolicyRule: p((q) => q.deleteFrom('policy_rules').where('tenant_id', '=', tenant).where('id', '=', param('ruleId'))),
    agentTransaction: p((q) => q.selectFrom('agent_transactions').selectAll().where('tenant_id', '=', tenant).where('id', '=', param('id'))),
    agentTransactionsPage: p((q) => agentWindow(q)),
    agentTransactionsPageByStatus: p((q) => agentWindow(q).where('status', '=', param('status'))),
    agentDebitsOfSession: p((q) =>
      q
        .selectFrom('agent_transactions')
        .select('debits')
        .where('tenant_id', '=', tenant)
        .where('actor_key_id', '=', param('keyId'))
        .where('session_id', '=', param('sessionId'))
        .where('status', 'in', COUNTED_STATUSES),
    ),
    agentDebitsSince: p((q) =>
      q
        .selectFrom('agent_transactions')
        .select('debits')
        .where('tenant_id', '=', tenant)
        .where('actor_key_id', '=', param('keyId'))
        .where('created_at', '>', param('since'))
        .where('status', 'in', COUNTED_STATUSES),
    ),
    insertAgentTransaction: p((q) =>
      q.insertInto('agent_transactions').values({
        tenant_id: tenant,
        id: param('id'),
        status: param('status'),
        session_id: param('sessionId'),
        actor_key_id: param('actorKeyId'),
        input: param('input'),
        debits: param('debits'),
        created_at: param('createdAt'),
        decided_at: param<string | null>('decidedAt'),
        decided_by: param<string | null>('decidedBy'),
        reversal_transaction_id: param<string | null>('reversalTransactionId'),
      }),
    ),
    decideAgentTransaction: p((q) =>
      q
        .updateTable('agent_transactions')
        .set({
          status: param('to'),
          decided_at: param<string | null>('decidedAt'),
          decided_by: param<string | null>('decidedBy'),
          reversal_transaction_id: param<string | null>('reversalTransactionId'),
        })
        .where('tenant_id', '=', tenant)
        .where('id', '=', param('id'))
        .where('status', '=', param('from')),
    ),
    agentAuditPage: p((q) =>
      q
        .selectFrom('audit_log')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('type', '=', 'AGENT')
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
    transferSender: p((q) =>
      q
        .selectFrom('chain_transfers')
        .select('from_address')
        .where('tenant_id', '=', tenant)
        .where('chain', '=', param('chain'))
        .where('tx_hash', '=', param('txHash'))
        .where('to_canonical', '=', param('toCanonical'))
        .where('amount', '=', param('amount'))
        .limit(1),
    ),
    chainCheckpoint: p((q) => q.selectFrom('chain_checkpoints').selectAll().where('chain', '=', param('chain'))),
    setChainCheckpoint: p((q) =>
      q
        .insertInto('chain_checkpoints')
        .values({
          chain: param('chain'),
          next_block: param<bigint>('nextBlock'),
          transfers_seen: param<bigint>('seen'),
          transfers_matched: param<bigint>('matched'),
          updated_at: param('updatedAt'),
        })
        .onConflict((oc) =>
          oc.column('chain').doUpdateSet({
            next_block: (eb) => eb.ref('excluded.next_block'),
            transfers_seen: (eb) => eb.ref('excluded.transfers_seen'),
            transfers_matched: (eb) => eb.ref('excluded.transfers_matched'),
            updated_at: (eb) => eb.ref('excluded.updated_at'),
          }),
        ),
    ),
    watchedWalletsOfTenant: p((q) =>
      q
        .selectFrom('settlements')
        .select(['wallet_canonical', 'token'])
        .distinct()
        .where('tenant_id', '=', tenant)
        .where('status', '=', 'PENDING')
        .where('chain', '=', param('chain')),
    ),
    pendingSettlementsForWallet: p((q) =>
      q
        .selectFrom('settlements')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('chain', '=', param('chain'))
        .where('wallet_canonical', '=', param('walletCanonical'))
        .where('status', '=', 'PENDING')
        .where('token', '=', param('token'))
        .where('amount', '=', param('amount'))
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    onchainLineRefs: p((q) =>
      q
        .selectFrom('onchain_lines')
        .select(['transaction_id', 'line_no'])
        .where('tenant_id', '=', tenant)
        .where('chain', '=', param('chain'))
        .where('tx_hash', '=', param('txHash')),
    ),
    insertOnchainLine: p((q) =>
      q.insertInto('onchain_lines').values({
        tenant_id: tenant,
        chain: param('chain'),
        tx_hash: param('txHash'),
        transaction_id: param('transactionId'),
        line_no: param<bigint>('lineNo'),
      }),
    ),
    insertChainTransfer: p((q) =>
      q
        .insertInto('chain_transfers')
        .values({
          tenant_id: tenant,
          chain: param('chain'),
          tx_hash: param('txHash'),
          log_index: param<bigint>('logIndex'),
          token: param('token'),
          token_contract: param('tokenContract'),
          from_address: param('from'),
          to_address: param('to'),
          to_canonical: param('toCanonical'),
          amount: param('amount'),
          block_number: param<bigint>('blockNumber'),
          block_hash: param('blockHash'),
          seen_at: param('seenAt'),
        })
        .onConflict((oc) => oc.columns(['tenant_id', 'chain', 'tx_hash', 'log_index']).doNothing()),
    ),
    setTransferSettlement: p((q) =>
      q
        .updateTable('chain_transfers')
        .set({ settlement_id: param('settlementId') })
        .where('tenant_id', '=', tenant)
        .where('chain', '=', param('chain'))
        .where('tx_hash', '=', param('txHash'))
        .where('log_index', '=', param<bigint>('logIndex')),
    ),
    clearingAccount: p((q) => q.selectFrom('clearing_accounts').select('account_id').where('tenant_id', '=', tenant)),
    setClearingAccount: p((q) => q.insertInto('clearing_accounts').values({ tenant_id: tenant, account_id: param('accountId') })),
    secret: p((q) => q.selectFrom('instance_secrets').select('value').where('name', '=', param('name'))),
    insertSecret: p((q) =>
      q
        .insertInto('instance_secrets')
        .values({ name: param('name'), value: param('value') })
        .onConflict((oc) => oc.column('name').doNothing()),
    ),
  };
}

export class SqliteStore implements Store, WriteTx {
  private readonly s: ReturnType<typeof statements>;
  /** data_version moves with other connections' commits, total_changes() with this connection's own. */
  private readonly versionStatement: BetterSqlite3.Statement<[], { v: string }>;
  private readonly accountCache = new Map<string, Account>();
  /**
   * Within one write transaction nobody else can write (it holds the write lock), so the chain head of each
   * tenant and the balances it touched are remembered until the transaction ends or a savepoint rolls back.
   */
  private readonly auditHeads = new Map<string, string | null>();
  private readonly heldBalances = new Map<string, bigint>();

  private constructor(
    private readonly db: SqliteDb,
    kysely: Kysely<Database>,
  ) {
    this.s = statements(sqlitePreparer(db, kysely));
    this.versionStatement = db.prepare("SELECT (SELECT data_version FROM pragma_data_version()) || ':' || total_changes() AS v");
  }

  static async open(path: string): Promise<SqliteStore> {
    const { db, kysely } = await openDatabase(path);
    return new SqliteStore(db, kysely);
  }

  async secret(name: string): Promise<Buffer> {
    const existing = await this.s.secret.get({ name });
    if (existing) return Buffer.from(existing.value, 'hex');
    await this.s.insertSecret.run({ name, value: randomBytes(32).toString('hex') });
    // Another process may have won the race; the stored value is the one.
    return Buffer.from((await this.s.secret.get({ name }))!.value, 'hex');
  }

  async close(): Promise<void> {
    this.db.close();
  }

  /** The journal mode and synchronous level this connection runs with, read back from SQLite. */
  durability(): string {
    return durabilityOf(this.db);
  }

  /** Raw SQL for tests and maintenance that need to look under the ledger. */
  get sqlite(): SqliteDb {
    return this.db;
  }

  // Reads.
  async tenant(tenantId: string): Promise<Tenant | undefined> {
    const r = await this.s.tenant.get({ tenantId });
    return r && { id: r.id, name: r.name, createdAt: r.created_at };
  }

  /** Read on every request, never cached: a revocation by any process holds on the very next request. */
  async apiKeyByHash(keyHash: string): Promise<ApiKey | undefined> {
    const r = await this.s.apiKeyByHash.get({ keyHash });
    return r && toApiKey(r);
  }

  async apiKey(tenantId: string, keyId: string): Promise<ApiKey | undefined> {
    const r = await this.s.apiKey.get({ tenantId, keyId });
    return r && toApiKey(r);
  }

  async apiKeys(tenantId: string): Promise<ApiKey[]> {
    return (await this.s.apiKeys.all({ tenantId })).map(toApiKey);
  }

  /** Accounts never change once created, so a found one is cached; a miss always asks the database. */
  async account(tenantId: string, accountId: string): Promise<Account | undefined> {
    const cacheKey = `${tenantId}\u0000${accountId}`;
    const cached = this.accountCache.get(cacheKey);
    if (cached) return cached;
    const r = await this.s.account.get({ tenantId, accountId });
    if (!r) return undefined;
    if (this.accountCache.size >= ACCOUNT_CACHE_MAX) this.accountCache.clear();
    const account = toAccount(r);
    this.accountCache.set(cacheKey, account);
    return account;
  }

  async accountsByIds(tenantId: string, ids: string[]): Promise<Account[]> {
    const found: Account[] = [];
    for (const accountId of ids) {
      const account = await this.account(tenantId, accountId);
      if (account) found.push(account);
    }
    return found;
  }

  accountsPage(tenantId: string, before: number | null, limit: number): Rows<Account> {
    return lazy(this.s.accountsPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), toAccount);
  }

  async balances(tenantId: string, accountId: string): Promise<Map<Asset, bigint>> {
    return new Map((await this.s.balances.all({ tenantId, accountId })).map((r) => [r.asset as Asset, BigInt(r.balance)]));
  }

  async currentBalance(tenantId: string, accountId: string, asset: Asset): Promise<bigint> {
    const held = this.heldBalances.get(`${tenantId}|${accountId}|${asset}`);
    if (held !== undefined) return held;
    const r = await this.s.balance.get({ tenantId, accountId, asset });
    return r ? BigInt(r.balance) : 0n;
  }

  /** Ends what is remembered of the open write transaction (see auditHeads). */
  forgetWriteState(): void {
    this.auditHeads.clear();
    this.heldBalances.clear();
  }

  async balanceAt(tenantId: string, accountId: string, asset: Asset, at: string, inclusive: boolean): Promise<bigint | null> {
    const statement = inclusive ? this.s.balanceAtInclusive : this.s.balanceAtExclusive;
    const r = await statement.get({ tenantId, accountId, asset, at });
    return r ? BigInt(r.balance_after) : null;
  }

  async entriesPage(
    tenantId: string,
    accountId: string,
    range: { from: string | null; to: string | null },
    before: KeyPosition | null,
    limit: number,
  ): Promise<EntryViewPage> {
    const to = range.to ?? TIME_MAX;
    const beforeTime = before?.createdAt ?? TIME_MAX;
    const window = {
      tenantId,
      accountId,
      from: range.from ?? TIME_MIN,
      upTo: beforeTime < to ? beforeTime : to,
      beforeTime,
      beforeSeq: before ? BigInt(before.seq) : SEQ_MAX,
    };
    const views = await this.s.entryViews.all({ ...window, limit: limit + 1 });
    // Never more than fits one answer (rarely fewer than asked: an entry is at most a few KiB).
    const fit = Math.min(limit, countWithinAnswer(views));
    if (views.length <= fit) return { views, next: null };
    views.length = fit;
    const last = (await this.s.entryPosition.get({ ...window, offset: fit - 1 }))!;
    return { views, next: { createdAt: last.created_at, seq: Number(last.seq) } };
  }

  async entriesBetween(tenantId: string, accountId: string, asset: Asset, from: string, to: string, limit: number): Promise<Entry[]> {
    return (await this.s.entriesBetween.all({ tenantId, accountId, asset, from, to, limit })).map(toEntry);
  }

  async hasTransaction(tenantId: string, transactionId: string): Promise<boolean> {
    return (await this.s.hasTransaction.get({ tenantId, transactionId })) !== undefined;
  }

  async onchainEntries(tenantId: string, transactionId: string): Promise<Entry[]> {
    return (await this.s.onchainEntries.all({ tenantId, transactionId })).map(toEntry);
  }

  async transaction(tenantId: string, transactionId: string): Promise<TransactionRecord | undefined> {
    const r = await this.s.transaction.get({ tenantId, transactionId });
    return r && toTransaction(r);
  }

  transactionsPage(tenantId: string, before: number | null, limit: number): Rows<TransactionRecord> {
    return lazy(this.s.transactionsPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), toTransaction);
  }

  async idempotency(tenantId: string, endpoint: string, key: string): Promise<StoredIdempotency | undefined> {
    const r = await this.s.idempotency.get({ tenantId, endpoint, key });
    return r && { requestHash: r.request_hash, status: Number(r.status), body: r.body };
  }

  async lastCommitTime(): Promise<string | null> {
    return (await this.s.lastCommitTime.get())?.occurred_at ?? null;
  }

  async settlement(tenantId: string, settlementId: string): Promise<Settlement | undefined> {
    const r = await this.s.settlement.get({ tenantId, settlementId });
    return r && toSettlement(r);
  }

  settlementsPage(tenantId: string, filter: SettlementFilter, before: number | null, limit: number): Rows<Settlement> {
    const window = {
      tenantId,
      from: filter.from ?? TIME_MIN,
      to: filter.to ?? TIME_MAX,
      before: before === null ? SEQ_MAX : BigInt(before),
      limit,
    };
    const rows = filter.status ? this.s.settlementsPageByStatus.iterate({ ...window, status: filter.status }) : this.s.settlementsPage.iterate(window);
    return lazy(rows, toSettlement);
  }

  async pendingSettlements(tenantId: string, target: SettlementTarget, limit: number): Promise<Settlement[]> {
    const { accountId, token, amountMinor, chain, walletCanonical } = target;
    return (await this.s.pendingSettlements.all({ tenantId, accountId, token, amount: amountMinor.toString(), chain, walletCanonical, limit })).map(toSettlement);
  }

  async settlementsMatchedTo(tenantId: string, transactionId: string): Promise<Settlement[]> {
    return (await this.s.settlementsMatchedTo.all({ tenantId, transactionId })).map(toSettlement);
  }

  /** Tenant by tenant, so that every seek is on an index that tenant id leads. */
  async nextExpiry(): Promise<string | null> {
    let earliest: string | null = null;
    for (const { id: tenantId } of (await this.s.tenantIds.all())) {
      const at = (await this.s.firstExpiry.get({ tenantId }))?.expires_at ?? null;
      if (at !== null && (earliest === null || at < earliest)) earliest = at;
    }
    return earliest;
  }

  /** Tenant by tenant, so that every seek is on an index that tenant id leads. */
  async expiredSettlements(at: string, limit: number): Promise<Array<{ tenantId: string; id: string }>> {
    const found: Array<{ tenantId: string; id: string }> = [];
    for (const { id: tenantId } of (await this.s.tenantIds.all())) {
      if (found.length >= limit) break;
      for (const r of (await this.s.expiredSettlements.all({ tenantId, at, limit: limit - found.length }))) found.push({ tenantId, id: r.id });
    }
    return found;
  }

  reconciliationResultsPage(tenantId: string, before: number | null, limit: number): Rows<ReconciliationResult & { seq: number }> {
    return lazy(this.s.reconciliationResultsPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), (r) => ({
      seq: Number(r.seq),
      transactionId: r.transaction_id,
      outcome: r.outcome as ReconciliationResult['outcome'],
      settlementId: r.settlement_id,
      source: r.source as ReconciliationResult['source'],
      reconciledAt: r.reconciled_at,
    }));
  }

  auditPage(
    tenantId: string,
    range: { from: string; to: string; type: ActorType | null },
    after: { occurredAt: string; seq: number } | null,
    limit: number,
  ): Rows<StoredAuditRecord> {
    return lazy(
      this.s.auditPage.iterate({
        tenantId,
        lower: after && after.occurredAt > range.from ? after.occurredAt : range.from,
        to: range.to,
        afterTime: after?.occurredAt ?? TIME_MIN,
        afterSeq: after ? BigInt(after.seq) : 0n,
        type: range.type ?? '*',
        limit,
      }),
      toStoredAudit,
    );
  }

  async auditChainPage(tenantId: string, afterSeq: number, limit: number): Promise<StoredAuditRecord[]> {
    return (await this.s.auditChainPage.all({ tenantId, afterSeq: BigInt(afterSeq), limit })).map(toStoredAudit);
  }

  async webhook(tenantId: string): Promise<Webhook | undefined> {
    const r = await this.s.webhook.get({ tenantId });
    return r && toWebhook(r);
  }

  async webhooks(): Promise<Webhook[]> {
    return (await this.s.webhooks.all()).map(toWebhook);
  }

  async changeVersion(): Promise<string> {
    return this.versionStatement.get()!.v;
  }

  async outboxAfter(tenantId: string, afterSeq: number): Promise<OutboxEvent | undefined> {
    const r = await this.s.outboxAfter.get({ tenantId, afterSeq: BigInt(afterSeq) });
    return r && toOutboxEvent(r);
  }

  async outboxEvent(tenantId: string, eventId: string): Promise<OutboxEvent | undefined> {
    const r = await this.s.outboxEvent.get({ tenantId, eventId });
    return r && toOutboxEvent(r);
  }

  async lastOutboxSeq(tenantId: string): Promise<number> {
    return Number((await this.s.lastOutboxSeq.get({ tenantId }))?.seq ?? 0);
  }

  async webhookDelivery(tenantId: string, eventId: string): Promise<DeliveryState | undefined> {
    const r = await this.s.webhookDelivery.get({ tenantId, eventId });
    return r && toDelivery(r);
  }

  async queuedRedelivery(tenantId: string): Promise<DeliveryState | undefined> {
    const r = await this.s.queuedRedelivery.get({ tenantId });
    return r && toDelivery(r);
  }

  webhookDeliveriesPage(tenantId: string, before: number | null, limit: number): Rows<DeliveryState & { seq: number }> {
    return lazy(this.s.webhookDeliveriesPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), toDelivery);
  }

  async policyRules(tenantId: string): Promise<PolicyRule[]> {
    return (await this.s.policyRules.all({ tenantId })).map(toPolicyRule);
  }

  async agentTransaction(tenantId: string, id: string): Promise<AgentTransaction | undefined> {
    const r = await this.s.agentTransaction.get({ tenantId, id });
    return r && toAgentTransaction(r);
  }

  agentTransactionsPage(tenantId: string, status: AgentStatus | null, before: number | null, limit: number): Rows<AgentTransaction> {
    const window = { tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit };
    const rows = status ? this.s.agentTransactionsPageByStatus.iterate({ ...window, status }) : this.s.agentTransactionsPage.iterate(window);
    return lazy(rows, toAgentTransaction);
  }

  async agentDebits(tenantId: string, keyId: string, scope: { sessionId: string } | { since: string }): Promise<Array<Record<string, string>>> {
    const rows =
      'sessionId' in scope
        ? (await this.s.agentDebitsOfSession.all({ tenantId, keyId, sessionId: scope.sessionId }))
        : (await this.s.agentDebitsSince.all({ tenantId, keyId, since: scope.since }));
    return rows.map((r) => JSON.parse(r.debits) as Record<string, string>);
  }

  agentAuditPage(tenantId: string, before: number | null, limit: number): Rows<StoredAuditRecord> {
    return lazy(this.s.agentAuditPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), toStoredAudit);
  }

  async transferSender(tenantId: string, chain: string, txHash: string, toCanonical: string, amountMinor: bigint): Promise<string | null> {
    return (await this.s.transferSender.get({ tenantId, chain, txHash, toCanonical, amount: amountMinor.toString() }))?.from_address ?? null;
  }

  async chainCheckpoint(chain: Chain): Promise<ChainCheckpoint | undefined> {
    const r = await this.s.chainCheckpoint.get({ chain });
    return (
      r && {
        chain: r.chain as Chain,
        nextBlock: Number(r.next_block),
        transfersSeen: Number(r.transfers_seen),
        transfersMatched: Number(r.transfers_matched),
        updatedAt: r.updated_at,
      }
    );
  }

  /** Tenant by tenant, so that every seek is on an index that tenant id leads. */
  async watchedWallets(chain: Chain): Promise<WatchedWallet[]> {
    const wallets: WatchedWallet[] = [];
    for (const { id: tenantId } of await this.s.tenantIds.all()) {
      for (const r of await this.s.watchedWalletsOfTenant.all({ tenantId, chain })) wallets.push({ tenantId, walletCanonical: r.wallet_canonical, token: r.token as Token });
    }
    return wallets;
  }

  async pendingSettlementsForWallet(tenantId: string, target: Omit<SettlementTarget, 'accountId'>, limit: number): Promise<Settlement[]> {
    const { token, amountMinor, chain, walletCanonical } = target;
    return (await this.s.pendingSettlementsForWallet.all({ tenantId, chain, walletCanonical, token, amount: amountMinor.toString(), limit })).map(toSettlement);
  }

  async onchainLineRefs(tenantId: string, chain: Chain, txHash: string): Promise<Array<{ transactionId: string; lineNo: number }>> {
    return (await this.s.onchainLineRefs.all({ tenantId, chain, txHash: canonicalTxHash(chain, txHash) })).map((r) => ({ transactionId: r.transaction_id, lineNo: Number(r.line_no) }));
  }

  async clearingAccountId(tenantId: string): Promise<string | null> {
    return (await this.s.clearingAccount.get({ tenantId }))?.account_id ?? null;
  }

  // Writes; called only inside `write`.
  async insertTenant(tenant: Tenant): Promise<void> {
    await this.s.insertTenant.run({ id: tenant.id, name: tenant.name, createdAt: tenant.createdAt });
  }

  async insertApiKey(key: ApiKey, keyHash: string): Promise<void> {
    (await this.s.insertApiKey.run({
      tenantId: key.tenantId,
      id: key.id,
      keyHash,
      prefix: key.prefix,
      scopes: JSON.stringify(key.scopes),
      createdAt: key.createdAt,
    }));
  }

  async revokeApiKey(tenantId: string, keyId: string, revokedAt: string): Promise<boolean> {
    return (await this.s.revokeApiKey.run({ tenantId, keyId, revokedAt })) === 1;
  }

  async insertAccount(a: Omit<Account, 'seq'>): Promise<void> {
    (await this.s.insertAccount.run({
      tenantId: a.tenantId,
      id: a.id,
      name: a.name,
      description: a.description,
      currency: a.currency,
      type: a.type,
      createdAt: a.createdAt,
    }));
  }

  async insertTransaction(record: Omit<TransactionRecord, 'seq'>): Promise<void> {
    await this.s.insertTransaction.run({ tenantId: record.tenantId, id: record.id, document: record.document, createdAt: record.createdAt });
  }

  async insertEntry(e: Omit<Entry, 'seq'>, view: string): Promise<void> {
    (await this.s.insertEntry.run({
      tenantId: e.tenantId,
      id: e.id,
      transactionId: e.transactionId,
      accountId: e.accountId,
      lineNo: BigInt(e.lineNo),
      entryType: e.entryType,
      asset: e.asset,
      amount: e.amountMinor.toString(),
      details: JSON.stringify(e.details),
      description: e.description,
      createdAt: e.createdAt,
      balanceAfter: e.balanceAfterMinor.toString(),
      view,
    }));
  }

  async setBalance(tenantId: string, accountId: string, asset: Asset, balanceMinor: bigint): Promise<void> {
    await this.s.setBalance.run({ tenantId, accountId, asset, balance: balanceMinor.toString() });
    this.heldBalances.set(`${tenantId}|${accountId}|${asset}`, balanceMinor);
  }

  async insertIdempotency(tenantId: string, endpoint: string, key: string, stored: StoredIdempotency, createdAt: string): Promise<void> {
    (await this.s.insertIdempotency.run({
      tenantId,
      endpoint,
      key,
      requestHash: stored.requestHash,
      status: BigInt(stored.status),
      body: stored.body,
      createdAt,
    }));
  }

  async lastAuditHash(tenantId: string): Promise<string | null> {
    const held = this.auditHeads.get(tenantId);
    if (held !== undefined) return held;
    return (await this.s.lastAuditHash.get({ tenantId }))?.hash ?? null;
  }

  async appendAudit(r: AuditInsert): Promise<void> {
    (await this.s.appendAudit.run({
      tenantId: r.tenantId,
      id: r.id,
      type: r.type,
      action: r.action,
      actorKeyId: r.actorKeyId,
      occurredAt: r.occurredAt,
      payload: JSON.stringify(r.payload),
      prevHash: r.prevHash,
      hash: r.hash,
    }));
    this.auditHeads.set(r.tenantId, r.hash);
  }

  async insertSettlement(settlement: Omit<Settlement, 'seq'>): Promise<void> {
    const st = settlement;
    (await this.s.insertSettlement.run({
      tenantId: st.tenantId,
      id: st.id,
      accountId: st.accountId,
      token: st.token,
      amountText: st.amountText,
      amount: st.amountMinor.toString(),
      chain: st.chain,
      walletAddress: st.walletAddress,
      walletCanonical: canonicalAddress(st.chain, st.walletAddress),
      fromAddress: st.fromAddress,
      fromCanonical: st.fromAddress === null ? null : canonicalAddress(st.chain, st.fromAddress),
      expiresAt: st.expiresAt,
      createdAt: st.createdAt,
    }));
  }

  async settleSettlement(tenantId: string, settlementId: string, match: SettlementMatchFields): Promise<boolean> {
    const { transactionId, lineNo, txHash, blockNumber, confirmedAt } = match;
    return (
      (await this.s.settleSettlement.run({ tenantId, settlementId, transactionId, lineNo: BigInt(lineNo), txHash, blockNumber: BigInt(blockNumber), confirmedAt })) === 1
    );
  }

  async closeSettlement(tenantId: string, settlementId: string, status: 'CANCELLED' | 'UNMATCHED'): Promise<boolean> {
    return (await this.s.closeSettlement.run({ tenantId, settlementId, status })) === 1;
  }

  async insertReconciliationResult(tenantId: string, result: ReconciliationResult): Promise<void> {
    await this.s.insertReconciliationResult.run({ tenantId, ...result });
  }

  async upsertWebhook(w: Webhook): Promise<void> {
    (await this.s.upsertWebhook.run({
      tenantId: w.tenantId,
      url: w.url,
      secret: w.secret,
      startSeq: BigInt(w.startSeq),
      deliveredSeq: BigInt(w.deliveredSeq),
      createdAt: w.createdAt,
      updatedAt: w.updatedAt,
    }));
  }

  async setWebhookDelivered(tenantId: string, eventSeq: number): Promise<void> {
    await this.s.setWebhookDelivered.run({ tenantId, eventSeq: BigInt(eventSeq) });
  }

  async upsertWebhookDelivery(d: DeliveryState): Promise<void> {
    (await this.s.upsertWebhookDelivery.run({
      tenantId: d.tenantId,
      eventId: d.eventId,
      eventSeq: BigInt(d.eventSeq),
      type: d.type,
      status: d.status,
      attempts: BigInt(d.attempts),
      lastStatusCode: d.lastStatusCode === null ? null : BigInt(d.lastStatusCode),
      lastError: d.lastError,
      firstAttemptAt: d.firstAttemptAt,
      nextAttemptAt: d.nextAttemptAt,
      updatedAt: d.updatedAt,
    }));
  }

  async wakeWebhookDeliveries(tenantId: string, at: string): Promise<void> {
    await this.s.wakeWebhookDeliveries.run({ tenantId, at });
  }

  async setChainCheckpoint(c: ChainCheckpoint): Promise<void> {
    (await this.s.setChainCheckpoint.run({
      chain: c.chain,
      nextBlock: BigInt(c.nextBlock),
      seen: BigInt(c.transfersSeen),
      matched: BigInt(c.transfersMatched),
      updatedAt: c.updatedAt,
    }));
  }

  async insertChainTransfer(tenantId: string, t: ObservedTransfer, seenAt: string): Promise<boolean> {
    return (
      (await this.s.insertChainTransfer.run({
        tenantId,
        chain: t.chain,
        txHash: canonicalTxHash(t.chain, t.txHash),
        logIndex: BigInt(t.logIndex),
        token: t.token,
        tokenContract: t.tokenContract,
        from: t.from,
        to: t.to,
        toCanonical: canonicalAddress(t.chain, t.to),
        amount: t.amountMinor.toString(),
        blockNumber: BigInt(t.blockNumber),
        blockHash: t.blockHash,
        seenAt,
      })) === 1
    );
  }

  async setTransferSettlement(tenantId: string, t: ObservedTransfer, settlementId: string): Promise<void> {
    await this.s.setTransferSettlement.run({ tenantId, chain: t.chain, txHash: canonicalTxHash(t.chain, t.txHash), logIndex: BigInt(t.logIndex), settlementId });
  }

  async insertOnchainLine(tenantId: string, chain: Chain, txHash: string, transactionId: string, lineNo: number): Promise<void> {
    await this.s.insertOnchainLine.run({ tenantId, chain, txHash: canonicalTxHash(chain, txHash), transactionId, lineNo: BigInt(lineNo) });
  }

  async setClearingAccountId(tenantId: string, accountId: string): Promise<void> {
    await this.s.setClearingAccount.run({ tenantId, accountId });
  }

  async insertPolicyRule(rule: PolicyRule): Promise<void> {
    (await this.s.insertPolicyRule.run({
      tenantId: rule.tenantId,
      id: rule.id,
      type: rule.type,
      agentKeyPrefix: rule.agentKeyPrefix,
      params: JSON.stringify(rule.params),
      createdAt: rule.createdAt,
    }));
  }

  async deletePolicyRule(tenantId: string, ruleId: string): Promise<boolean> {
    return (await this.s.deletePolicyRule.run({ tenantId, ruleId })) === 1;
  }

  async insertAgentTransaction(record: Omit<AgentTransaction, 'seq'>, debits: Record<string, string>): Promise<void> {
    (await this.s.insertAgentTransaction.run({
      tenantId: record.tenantId,
      id: record.id,
      status: record.status,
      sessionId: record.sessionId,
      actorKeyId: record.actorKeyId,
      input: inputToJson(record.input),
      debits: JSON.stringify(debits),
      createdAt: record.createdAt,
      decidedAt: record.decidedAt,
      decidedBy: record.decidedBy,
      reversalTransactionId: record.reversalTransactionId,
    }));
  }

  async decideAgentTransaction(
    tenantId: string,
    id: string,
    from: AgentStatus,
    to: { status: AgentStatus; decidedAt: string | null; decidedBy: string | null; reversalTransactionId: string | null },
  ): Promise<boolean> {
    return (await this.s.decideAgentTransaction.run({ tenantId, id, from, to: to.status, decidedAt: to.decidedAt, decidedBy: to.decidedBy, reversalTransactionId: to.reversalTransactionId })) === 1;
  }

  async insertOutbox(event: OutboxInsert): Promise<void> {
    const body = 'payload' in event ? { payload: event.payload, transactionId: null } : { payload: '', transactionId: event.transactionId };
    await this.s.insertOutbox.run({ tenantId: event.tenantId, id: event.id, type: event.type, createdAt: event.createdAt, ...body });
  }
}
