// The Store port over SQL, written once for every engine: the statements (sql/statements.ts), the row mappings
// (sql/mappers.ts) and what is remembered inside one write transaction. An engine adds its connection, how it
// notices commits of other connections, and how it closes (sqlite/sqliteStore.ts, postgres/pgStore.ts).
import { randomBytes } from 'node:crypto';
import type { Account, ApiKey, Entry, EntryViewPage, Tenant, TransactionRecord } from '../../core/types.js';
import type {
  AuditInsert,
  KeyPosition,
  OutboxInsert,
  ReadAhead,
  Rows,
  SettlementFilter,
  SettlementMatchFields,
  SettlementTarget,
  Store,
  StoredAuditRecord,
  StoredIdempotency,
  WriteTx,
} from '../../core/ports.js';
import { canonicalAddress, canonicalTxHash, type ReconciliationResult, type Settlement } from '../../core/settlement.js';
import type { ActorType } from '../../core/audit.js';
import type { DeliveryState, OutboxEvent, Webhook } from '../../core/webhook.js';
import type { PolicyRule } from '../../core/policy.js';
import { inputToJson, type AgentStatus, type AgentTransaction } from '../../core/agent.js';
import type { ChainCheckpoint, ObservedTransfer, WatchedWallet } from '../../core/chainWatch.js';
import type { Asset, Chain, Token } from '../../core/money.js';
import { countWithinAnswer } from '../../core/paging.js';
import { BALANCE_READ_AHEAD_ACCOUNTS } from '../../core/limits.js';
import type { Statements } from '../queries/index.js';
import * as m from './mappers.js';

// Bounds for keyset positions when a list starts at its newest row. Text compares byte by byte on both engines
// (SQLite's default; the C collation on PostgreSQL), so '~' sorts after every ISO instant.
const TIME_MAX = '9999-12-31T23:59:59.999Z~';
const TIME_MIN = '';
const SEQ_MAX = 2n ** 62n;
const ACCOUNT_CACHE_MAX = 100_000;

/** A kept balance held in the open write transaction, by tenant, account and asset. */
const heldKey = (tenantId: string, accountId: string, asset: string) => `${tenantId}|${accountId}|${asset}`;

/** The arguments of a statement over `width` accounts (a0, a1, …): the first repeated where there are fewer. */
function accountsArgs(tenantId: string, accountIds: readonly string[], width: number): Record<string, string> {
  const args: Record<string, string> = { tenantId };
  for (let i = 0; i < width; i++) args[`a${i}`] = accountIds[i] ?? accountIds[0]!;
  return args;
}

/** Rows mapped as they are read: the caller stops reading where its page ends (core/paging.ts). */
async function* lazy<R, T>(rows: Iterable<R> | AsyncIterable<R>, map: (row: R) => T): AsyncGenerator<T> {
  for await (const row of rows) yield map(row);
}

export abstract class SqlStore implements Store, WriteTx {
  private readonly accountCache = new Map<string, Account>();
  /**
   * Within one write transaction nobody else can write (it holds the write lock), so the chain head of each
   * tenant and the balances it touched are remembered until the transaction ends or a savepoint rolls back.
   */
  private readonly auditHeads = new Map<string, string | null>();
  private readonly heldBalances = new Map<string, bigint>();

  protected constructor(protected readonly s: Statements) {}

  /** A value that differs once anything was committed since it was read, by any connection. */
  abstract changeVersion(): Promise<string>;
  abstract close(): Promise<void>;

  async secret(name: string): Promise<Buffer> {
    const existing = await this.s.secret.get({ name });
    if (existing) return Buffer.from(existing.value, 'hex');
    await this.s.insertSecret.run({ name, value: randomBytes(32).toString('hex') });
    // Another process may have won the race; the stored value is the one.
    return Buffer.from((await this.s.secret.get({ name }))!.value, 'hex');
  }

  // Reads.
  async tenant(tenantId: string): Promise<Tenant | undefined> {
    const r = await this.s.tenant.get({ tenantId });
    return r && { id: r.id, name: r.name, createdAt: r.created_at };
  }

  /** Read on every request, never cached: a revocation by any process holds on the very next request. */
  async apiKeyByHash(keyHash: string): Promise<ApiKey | undefined> {
    const r = await this.s.apiKeyByHash.get({ keyHash });
    return r && m.toApiKey(r);
  }

  async apiKey(tenantId: string, keyId: string): Promise<ApiKey | undefined> {
    const r = await this.s.apiKey.get({ tenantId, keyId });
    return r && m.toApiKey(r);
  }

  async apiKeys(tenantId: string): Promise<ApiKey[]> {
    return (await this.s.apiKeys.all({ tenantId })).map(m.toApiKey);
  }

  /** Accounts never change once created, so a found one is cached; a miss always asks the database. */
  async account(tenantId: string, accountId: string): Promise<Account | undefined> {
    const cacheKey = `${tenantId}\u0000${accountId}`;
    const cached = this.accountCache.get(cacheKey);
    if (cached) return cached;
    const r = await this.s.account.get({ tenantId, accountId });
    if (!r) return undefined;
    if (this.accountCache.size >= ACCOUNT_CACHE_MAX) this.accountCache.clear();
    const account = m.toAccount(r);
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
    return lazy(this.s.accountsPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), m.toAccount);
  }

  async balances(tenantId: string, accountId: string): Promise<Map<Asset, bigint>> {
    return new Map((await this.s.balances.all({ tenantId, accountId })).map((r) => [r.asset as Asset, BigInt(r.balance)]));
  }

  async currentBalance(tenantId: string, accountId: string, asset: Asset): Promise<bigint> {
    return (await this.currentBalances(tenantId, [{ accountId, asset }]))[0]!;
  }

  /**
   * Balances held in the open write transaction are known; the others are read two accounts per statement, so a
   * posting's usual two accounts cost one round trip on a networked engine.
   */
  async currentBalances(tenantId: string, slots: ReadonlyArray<{ accountId: string; asset: Asset }>): Promise<bigint[]> {
    const unknown = [...new Set(slots.filter((s) => !this.heldBalances.has(heldKey(tenantId, s.accountId, s.asset))).map((s) => s.accountId))];
    const read = new Map<string, bigint>();
    for (let i = 0; i < unknown.length; i += 2) {
      for (const r of await this.s.balancesOfPair.all(accountsArgs(tenantId, unknown.slice(i, i + 2), 2))) read.set(heldKey(tenantId, r.account_id, r.asset), BigInt(r.balance));
    }
    return slots.map((s) => {
      const key = heldKey(tenantId, s.accountId, s.asset);
      return this.heldBalances.get(key) ?? read.get(key) ?? 0n;
    });
  }

  /**
   * Reads at the start of a write group what its commands will read (kept balances, each tenant's audit chain head)
   * and holds it for the group; under the write lock nobody else changes them meanwhile. The reads are asked for
   * together: an engine that batches reads sends them in one round trip.
   */
  async readAhead(hints: readonly ReadAhead[]): Promise<void> {
    const accountsByTenant = new Map<string, Set<string>>();
    for (const { tenantId, balances } of hints) {
      const accounts = accountsByTenant.get(tenantId) ?? new Set<string>();
      accountsByTenant.set(tenantId, accounts);
      for (const { accountId, asset } of balances) if (!this.heldBalances.has(heldKey(tenantId, accountId, asset))) accounts.add(accountId);
    }
    const reads: Array<Promise<unknown>> = [];
    for (const [tenantId, accounts] of accountsByTenant) {
      const ids = [...accounts];
      for (let i = 0; i < ids.length; i += BALANCE_READ_AHEAD_ACCOUNTS) {
        const args = accountsArgs(tenantId, ids.slice(i, i + BALANCE_READ_AHEAD_ACCOUNTS), BALANCE_READ_AHEAD_ACCOUNTS);
        reads.push(Promise.resolve(this.s.balancesOfMany.all(args)).then((rows) => rows.forEach((r) => this.heldBalances.set(heldKey(tenantId, r.account_id, r.asset), BigInt(r.balance)))));
      }
      if (!this.auditHeads.has(tenantId)) reads.push(this.lastAuditHash(tenantId).then((hash) => this.auditHeads.set(tenantId, hash)));
    }
    await Promise.all(reads);
    // A balance with no row yet is 0.
    for (const { tenantId, balances } of hints) {
      for (const { accountId, asset } of balances) if (!this.heldBalances.has(heldKey(tenantId, accountId, asset))) this.heldBalances.set(heldKey(tenantId, accountId, asset), 0n);
    }
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
    return (await this.s.entriesBetween.all({ tenantId, accountId, asset, from, to, limit })).map(m.toEntry);
  }

  async hasTransaction(tenantId: string, transactionId: string): Promise<boolean> {
    return (await this.s.hasTransaction.get({ tenantId, transactionId })) !== undefined;
  }

  async onchainEntries(tenantId: string, transactionId: string): Promise<Entry[]> {
    return (await this.s.onchainEntries.all({ tenantId, transactionId })).map(m.toEntry);
  }

  async transaction(tenantId: string, transactionId: string): Promise<TransactionRecord | undefined> {
    const r = await this.s.transaction.get({ tenantId, transactionId });
    return r && m.toTransaction(r);
  }

  transactionsPage(tenantId: string, before: number | null, limit: number): Rows<TransactionRecord> {
    return lazy(this.s.transactionsPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), m.toTransaction);
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
    return r && m.toSettlement(r);
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
    return lazy(rows, m.toSettlement);
  }

  async pendingSettlements(tenantId: string, target: SettlementTarget, limit: number): Promise<Settlement[]> {
    const { accountId, token, amountMinor, chain, walletCanonical } = target;
    return (await this.s.pendingSettlements.all({ tenantId, accountId, token, amount: amountMinor.toString(), chain, walletCanonical, limit })).map(m.toSettlement);
  }

  async settlementsMatchedTo(tenantId: string, transactionId: string): Promise<Settlement[]> {
    return (await this.s.settlementsMatchedTo.all({ tenantId, transactionId })).map(m.toSettlement);
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
      m.toStoredAudit,
    );
  }

  async auditChainPage(tenantId: string, afterSeq: number, limit: number): Promise<StoredAuditRecord[]> {
    return (await this.s.auditChainPage.all({ tenantId, afterSeq: BigInt(afterSeq), limit })).map(m.toStoredAudit);
  }

  async webhook(tenantId: string): Promise<Webhook | undefined> {
    const r = await this.s.webhook.get({ tenantId });
    return r && m.toWebhook(r);
  }

  async webhooks(): Promise<Webhook[]> {
    return (await this.s.webhooks.all()).map(m.toWebhook);
  }

  async outboxAfter(tenantId: string, afterSeq: number): Promise<OutboxEvent | undefined> {
    const r = await this.s.outboxAfter.get({ tenantId, afterSeq: BigInt(afterSeq) });
    return r && m.toOutboxEvent(r);
  }

  async outboxEvent(tenantId: string, eventId: string): Promise<OutboxEvent | undefined> {
    const r = await this.s.outboxEvent.get({ tenantId, eventId });
    return r && m.toOutboxEvent(r);
  }

  async lastOutboxSeq(tenantId: string): Promise<number> {
    return Number((await this.s.lastOutboxSeq.get({ tenantId }))?.seq ?? 0);
  }

  async webhookDelivery(tenantId: string, eventId: string): Promise<DeliveryState | undefined> {
    const r = await this.s.webhookDelivery.get({ tenantId, eventId });
    return r && m.toDelivery(r);
  }

  async queuedRedelivery(tenantId: string): Promise<DeliveryState | undefined> {
    const r = await this.s.queuedRedelivery.get({ tenantId });
    return r && m.toDelivery(r);
  }

  webhookDeliveriesPage(tenantId: string, before: number | null, limit: number): Rows<DeliveryState & { seq: number }> {
    return lazy(this.s.webhookDeliveriesPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), m.toDelivery);
  }

  async policyRules(tenantId: string): Promise<PolicyRule[]> {
    return (await this.s.policyRules.all({ tenantId })).map(m.toPolicyRule);
  }

  async agentTransaction(tenantId: string, id: string): Promise<AgentTransaction | undefined> {
    const r = await this.s.agentTransaction.get({ tenantId, id });
    return r && m.toAgentTransaction(r);
  }

  agentTransactionsPage(tenantId: string, status: AgentStatus | null, before: number | null, limit: number): Rows<AgentTransaction> {
    const window = { tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit };
    const rows = status ? this.s.agentTransactionsPageByStatus.iterate({ ...window, status }) : this.s.agentTransactionsPage.iterate(window);
    return lazy(rows, m.toAgentTransaction);
  }

  async agentDebits(tenantId: string, keyId: string, scope: { sessionId: string } | { since: string }): Promise<Array<Record<string, string>>> {
    const rows =
      'sessionId' in scope
        ? (await this.s.agentDebitsOfSession.all({ tenantId, keyId, sessionId: scope.sessionId }))
        : (await this.s.agentDebitsSince.all({ tenantId, keyId, since: scope.since }));
    return rows.map((r) => JSON.parse(r.debits) as Record<string, string>);
  }

  agentAuditPage(tenantId: string, before: number | null, limit: number): Rows<StoredAuditRecord> {
    return lazy(this.s.agentAuditPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), m.toStoredAudit);
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
    return (await this.s.pendingSettlementsForWallet.all({ tenantId, chain, walletCanonical, token, amount: amountMinor.toString(), limit })).map(m.toSettlement);
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
    await this.s.insertApiKey.run({
      tenantId: key.tenantId,
      id: key.id,
      keyHash,
      prefix: key.prefix,
      scopes: JSON.stringify(key.scopes),
      createdAt: key.createdAt,
    });
  }

  async revokeApiKey(tenantId: string, keyId: string, revokedAt: string): Promise<boolean> {
    return (await this.s.revokeApiKey.run({ tenantId, keyId, revokedAt })) === 1;
  }

  async insertAccount(a: Omit<Account, 'seq'>): Promise<void> {
    await this.s.insertAccount.run({
      tenantId: a.tenantId,
      id: a.id,
      name: a.name,
      description: a.description,
      currency: a.currency,
      type: a.type,
      createdAt: a.createdAt,
    });
  }

  async insertTransaction(record: Omit<TransactionRecord, 'seq'>): Promise<void> {
    await this.s.insertTransaction.run({ tenantId: record.tenantId, id: record.id, document: record.document, createdAt: record.createdAt });
  }

  async insertEntry(e: Omit<Entry, 'seq'>, view: string): Promise<void> {
    await this.s.insertEntry.run({
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
    });
  }

  async setBalance(tenantId: string, accountId: string, asset: Asset, balanceMinor: bigint): Promise<void> {
    await this.s.setBalance.run({ tenantId, accountId, asset, balance: balanceMinor.toString() });
    this.heldBalances.set(heldKey(tenantId, accountId, asset), balanceMinor);
  }

  async insertIdempotency(tenantId: string, endpoint: string, key: string, stored: StoredIdempotency, createdAt: string): Promise<void> {
    await this.s.insertIdempotency.run({
      tenantId,
      endpoint,
      key,
      requestHash: stored.requestHash,
      status: BigInt(stored.status),
      body: stored.body,
      createdAt,
    });
  }

  async lastAuditHash(tenantId: string): Promise<string | null> {
    const held = this.auditHeads.get(tenantId);
    if (held !== undefined) return held;
    return (await this.s.lastAuditHash.get({ tenantId }))?.hash ?? null;
  }

  async appendAudit(r: AuditInsert): Promise<void> {
    await this.s.appendAudit.run({
      tenantId: r.tenantId,
      id: r.id,
      type: r.type,
      action: r.action,
      actorKeyId: r.actorKeyId,
      occurredAt: r.occurredAt,
      payload: JSON.stringify(r.payload),
      prevHash: r.prevHash,
      hash: r.hash,
    });
    this.auditHeads.set(r.tenantId, r.hash);
  }

  async insertSettlement(settlement: Omit<Settlement, 'seq'>): Promise<void> {
    const st = settlement;
    await this.s.insertSettlement.run({
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
    });
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
    await this.s.upsertWebhook.run({
      tenantId: w.tenantId,
      url: w.url,
      secret: w.secret,
      startSeq: BigInt(w.startSeq),
      deliveredSeq: BigInt(w.deliveredSeq),
      createdAt: w.createdAt,
      updatedAt: w.updatedAt,
    });
  }

  async setWebhookDelivered(tenantId: string, eventSeq: number): Promise<void> {
    await this.s.setWebhookDelivered.run({ tenantId, eventSeq: BigInt(eventSeq) });
  }

  async upsertWebhookDelivery(d: DeliveryState): Promise<void> {
    await this.s.upsertWebhookDelivery.run({
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
    });
  }

  async wakeWebhookDeliveries(tenantId: string, at: string): Promise<void> {
    await this.s.wakeWebhookDeliveries.run({ tenantId, at });
  }

  async setChainCheckpoint(c: ChainCheckpoint): Promise<void> {
    await this.s.setChainCheckpoint.run({
      chain: c.chain,
      nextBlock: BigInt(c.nextBlock),
      seen: BigInt(c.transfersSeen),
      matched: BigInt(c.transfersMatched),
      updatedAt: c.updatedAt,
    });
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
    await this.s.insertPolicyRule.run({
      tenantId: rule.tenantId,
      id: rule.id,
      type: rule.type,
      agentKeyPrefix: rule.agentKeyPrefix,
      params: JSON.stringify(rule.params),
      createdAt: rule.createdAt,
    });
  }

  async deletePolicyRule(tenantId: string, ruleId: string): Promise<boolean> {
    return (await this.s.deletePolicyRule.run({ tenantId, ruleId })) === 1;
  }

  async insertAgentTransaction(record: Omit<AgentTransaction, 'seq'>, debits: Record<string, string>): Promise<void> {
    await this.s.insertAgentTransaction.run({
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
    });
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
