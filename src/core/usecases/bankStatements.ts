// Bank statements, the request side: a file read into a statement and checked against its account, imported in parts
// on the writer, and the statements and their lines read back.
import { createHash } from 'node:crypto';
import type { Deps } from '../context.js';
import { invalid, LedgerError, notFound } from '../errors.js';
import type { Actor } from '../audit.js';
import { parseAmount, type Asset } from '../money.js';
import { isFiat } from '../assets.js';
import type { BankStatement, StatementFormat, StatementLine } from '../bankStatement.js';
import type { StatementFileOptions } from '../bankFiles/parse.js';
import { canonicalJson } from '../audit.js';
import { pageBySeq } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { toIso } from '../time.js';
import {
  BANK_STATEMENT_LEASE_MS,
  BANK_STATEMENT_LINES_MAX,
  BANK_STATEMENT_PART_LINES,
  INSTANT_MAX,
  INSTANT_MIN,
  PAGE_SIZE_DEFAULT,
  RECONCILIATION_DATE_WINDOW_DAYS_DEFAULT,
} from '../limits.js';
import type { BankStatementImportQuery, BankStatementsQuery, MatchLineBody, StatementLinesQuery, UnreconciledEntriesQuery } from '../schemas.js';
import {
  DELETE_STATEMENT_ENDPOINT,
  IGNORE_LINE_ENDPOINT,
  MATCH_LINE_ENDPOINT,
  statementAnswer,
  UNMATCH_LINE_ENDPOINT,
  type AutoMatch,
} from '../commands/bankStatements.js';
import { once, requestHash } from '../idempotency.js';
import { RawJson } from '../json.js';
import { requireAccount } from './accounts.js';
import { listedEntryText, statementLineView } from '../views.js';
import type { StoredResponse } from '../idempotency.js';

/** A statement's file as the request carried it. */
export interface StatementFile {
  format: StatementFormat;
  bytes: Buffer;
}

/** A cursor's position in the unreconciled entries: an entry's createdAt and sequence. */
const isPosition = (p: unknown): p is [string, number] => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && Number.isSafeInteger(p[1]);

/** The rows a page reads, kept by id as they pass: the page is cut by their ids, then answered from the rows. */
async function* kept<T extends { id: string }>(rows: AsyncIterable<T>, into: Map<string, T>): AsyncGenerator<T> {
  for await (const row of rows) {
    into.set(row.id, row);
    yield row;
  }
}

export class BankStatementService {
  constructor(private readonly deps: Deps) {}

  /** Imports a statement once: 201 with it, or 200 with the one imported before from the same content. */
  async import(tenantId: string, actor: Actor, accountId: string, file: StatementFile, query: BankStatementImportQuery): Promise<StoredResponse> {
    const account = await this.deps.store.account(tenantId, accountId);
    if (!account) throw notFound(`Account ${accountId}`);
    if (account.type !== 'ASSET') {
      throw new LedgerError('ACCOUNT_TYPE_MISMATCH', `Account ${accountId} is a ${account.type} account; a bank statement belongs to an ASSET account.`);
    }
    const currency = account.currency;
    if (!isFiat(currency)) throw new LedgerError('CURRENCY_MISMATCH', `Account ${accountId} is in ${currency}; a bank statement is in a currency.`);
    const { header, lines } = await this.deps.parseStatement({ format: file.format, bytes: file.bytes, query, accountId, currency });
    const { writer } = this.deps;
    const begin = () => writer.run('beginStatementImport', { tenantId, accountId, header, leaseMs: BANK_STATEMENT_LEASE_MS, windowDaysDefault: RECONCILIATION_DATE_WINDOW_DAYS_DEFAULT });
    let start = await begin();
    if (start.kind === 'discard') {
      await this.discard(tenantId, start.statementId);
      start = await begin();
    }
    if (start.kind === 'imported') return { status: 200, body: start.body };
    if (start.kind === 'discard') throw new LedgerError('IDEMPOTENCY_IN_PROGRESS', `Statement ${JSON.stringify(header.externalId)} is being removed by another request; try again.`);
    const matches: AutoMatch[] = [];
    for (let i = 0; i < lines.length; i += BANK_STATEMENT_PART_LINES) {
      const part = await writer.run('importStatementPart', { tenantId, accountId, statementId: start.statementId, lines: lines.slice(i, i + BANK_STATEMENT_PART_LINES), windowDays: start.windowDays, leaseMs: BANK_STATEMENT_LEASE_MS });
      matches.push(...part.matches);
    }
    return { status: 201, body: await writer.run('finishStatementImport', { tenantId, actor, statementId: start.statementId, matches }) };
  }

  /** Matches what is still UNMATCHED, by the rules, in parts; answers the statement with its summary. */
  async reconcile(tenantId: string, actor: Actor, statementId: string): Promise<string> {
    const statement = await this.ready(tenantId, statementId);
    const windowDays = (await this.deps.store.dateWindowDays(tenantId, statement.accountId)) ?? RECONCILIATION_DATE_WINDOW_DAYS_DEFAULT;
    const matches: AutoMatch[] = [];
    let after: number | null = null;
    for (;;) {
      const part: StatementLine[] = [];
      for await (const line of this.deps.store.statementLinesPage(tenantId, statementId, 'UNMATCHED', after, BANK_STATEMENT_PART_LINES)) part.push(line);
      if (part.length === 0) break;
      after = part.at(-1)!.seq;
      matches.push(...(await this.deps.writer.run('reconcileStatementPart', { tenantId, statementId, lineIds: part.map((l) => l.id), windowDays })));
    }
    return this.deps.writer.run('finishReconcile', { tenantId, actor, statementId, matches });
  }

  match(tenantId: string, actor: Actor, key: string, lineId: string, body: MatchLineBody): Promise<StoredResponse> {
    const note = body.note ?? null;
    const hash = requestHash(JSON.stringify([lineId, body.entryIds, note]));
    return once(this.deps.inFlight, { tenantId, endpoint: MATCH_LINE_ENDPOINT, key, hash }, () =>
      this.deps.writer.run('matchStatementLine', { tenantId, actor, lineId, entryIds: body.entryIds, note, key, hash }),
    );
  }

  unmatch(tenantId: string, actor: Actor, key: string, lineId: string, note: string | null): Promise<StoredResponse> {
    const hash = requestHash(JSON.stringify([lineId, note]));
    return once(this.deps.inFlight, { tenantId, endpoint: UNMATCH_LINE_ENDPOINT, key, hash }, () => this.deps.writer.run('unmatchStatementLine', { tenantId, actor, lineId, note, key, hash }));
  }

  ignore(tenantId: string, actor: Actor, key: string, lineId: string, note: string): Promise<StoredResponse> {
    const hash = requestHash(JSON.stringify([lineId, note]));
    return once(this.deps.inFlight, { tenantId, endpoint: IGNORE_LINE_ENDPOINT, key, hash }, () => this.deps.writer.run('ignoreStatementLine', { tenantId, actor, lineId, note, key, hash }));
  }

  delete(tenantId: string, actor: Actor, key: string, statementId: string): Promise<StoredResponse> {
    const hash = requestHash(statementId);
    return once(this.deps.inFlight, { tenantId, endpoint: DELETE_STATEMENT_ENDPOINT, key, hash }, async () => {
      const answer = await this.deps.writer.run('deleteBankStatement', { tenantId, actor, statementId, key, hash });
      await this.discard(tenantId, statementId);
      return answer;
    });
  }

  /**
   * Removes what imports and removals left unfinished (a server stopped midway): up to `limit` statements read, each
   * removed in parts. Answers how many were read.
   */
  async removeUnfinished(limit: number): Promise<number> {
    const found = await this.deps.store.unfinishedStatements(this.deps.clock.now().toISOString(), limit);
    for (const { tenantId, id } of found) await this.discard(tenantId, id);
    return found.length;
  }

  /** Removes a statement set aside, a part at a time, other writes running between two. */
  private async discard(tenantId: string, statementId: string): Promise<void> {
    while (await this.deps.writer.run('discardStatementPart', { tenantId, statementId, lines: BANK_STATEMENT_PART_LINES }));
  }

  async settings(tenantId: string, accountId: string) {
    await requireAccount(this.deps, tenantId, accountId);
    return { accountId, dateWindowDays: (await this.deps.store.dateWindowDays(tenantId, accountId)) ?? RECONCILIATION_DATE_WINDOW_DAYS_DEFAULT };
  }

  async setSettings(tenantId: string, actor: Actor, accountId: string, dateWindowDays: number) {
    await requireAccount(this.deps, tenantId, accountId);
    return this.deps.writer.run('setReconciliationSettings', { tenantId, actor, accountId, dateWindowDays });
  }

  /** The account's entries in its currency, created in the window, that no line matched: oldest first. */
  async unreconciled(tenantId: string, accountId: string, query: UnreconciledEntriesQuery) {
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      throw invalid('Invalid query: from must not be after to.', [{ path: 'from', message: 'is after to' }]);
    }
    const account = await requireAccount(this.deps, tenantId, accountId);
    const range = { from: query.from === undefined ? INSTANT_MIN : toIso(query.from), to: query.to === undefined ? INSTANT_MAX : toIso(query.to) };
    const scope = new CursorScope(`unreconciled:${tenantId}:${accountId}`, range);
    const now = this.deps.clock.now().getTime();
    const position = query.cursor ? this.deps.cursors.decode(scope, query.cursor, now, isPosition) : null;
    const limit = query.limit ?? PAGE_SIZE_DEFAULT;
    const rows = await this.deps.store.unreconciledEntries(tenantId, accountId, account.currency, range.from, range.to, position && { createdAt: position[0], seq: position[1] }, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: new RawJson(`[${page.map((r) => listedEntryText(r.view, null)).join(',')}]`),
      nextCursor: rows.length > limit && last ? this.deps.cursors.encode(scope, [last.createdAt, last.seq], now) : null,
    };
  }

  private async ready(tenantId: string, statementId: string) {
    const statement = await this.deps.store.bankStatement(tenantId, statementId);
    if (!statement || statement.state !== 'READY') throw notFound(`Bank statement ${statementId}`);
    return statement;
  }

  async get(tenantId: string, statementId: string) {
    return statementAnswer(this.deps.store, await this.ready(tenantId, statementId));
  }

  async list(tenantId: string, query: BankStatementsQuery) {
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      throw invalid('Invalid query: from must not be after to.', [{ path: 'from', message: 'is after to' }]);
    }
    const filter = { accountId: query.accountId ?? null, from: query.from === undefined ? null : toIso(query.from), to: query.to === undefined ? null : toIso(query.to) };
    const { store } = this.deps;
    const read = new Map<string, BankStatement>();
    const page = await pageBySeq(this.deps, new CursorScope(`bank-statements:${tenantId}`, filter), query, (before, limit) => kept(store.bankStatementsPage(tenantId, filter, before, limit), read), (s) => s.id);
    const items = await Promise.all(page.items.map((item) => statementAnswer(store, read.get(item.value)!)));
    return { items, nextCursor: page.nextCursor };
  }

  async lines(tenantId: string, statementId: string, query: StatementLinesQuery) {
    await this.ready(tenantId, statementId);
    const { store } = this.deps;
    const status = query.status ?? null;
    const read = new Map<string, StatementLine>();
    const page = await pageBySeq(this.deps, new CursorScope(`bank-statement-lines:${tenantId}:${statementId}`, { status }), query, (after, limit) => kept(store.statementLinesPage(tenantId, statementId, status, after, limit), read), (l) => l.id);
    const items = await Promise.all(page.items.map(async (item) => { const line = read.get(item.value)!; return statementLineView(line, await store.matchedEntryIds(tenantId, line.id)); }));
    return { items, nextCursor: page.nextCursor };
  }
}
