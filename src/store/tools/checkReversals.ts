// `ledger db check`, reversals: each mirrors its original line for line, both ends of a link are the link's tenant's
// transactions, and no transaction is reversed twice.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { rowsOf } from '../ledgerTables.js';
import { parseJson, toJsonText } from '../../core/json.js';
import { REVERSES_KEY } from '../../core/enums.js';

/** Counts what was looked at and names the first problem (check.ts, Tally). */
export interface Tallied {
  checked: number;
  problem(message: string): void;
}

interface DocumentLine {
  accountId: string;
  type: string;
  monetary: unknown;
}
interface Document {
  metadata: Record<string, string>;
  lines: DocumentLine[];
}

/** Where a reversal's lines differ from the mirror of its original's, in words; null when they do not. */
export function mirrorBreak(original: Document, reversal: Document, originalId: string): string | null {
  if (reversal.metadata[REVERSES_KEY] !== originalId) return `its metadata names ${JSON.stringify(reversal.metadata[REVERSES_KEY] ?? null)} as the transaction it reverses`;
  if (reversal.lines.length !== original.lines.length) return `it has ${reversal.lines.length} lines; the original has ${original.lines.length}`;
  for (const [i, line] of reversal.lines.entries()) {
    const was = original.lines[i]!;
    if (line.accountId !== was.accountId) return `line ${i} is on account ${line.accountId}; the original's is on ${was.accountId}`;
    if (line.type === was.type) return `line ${i} is a ${line.type}, as the original's is: it is not on the other side`;
    // Compared as written: every digit of an amount, the rail or the chain fields.
    if (toJsonText(line.monetary) !== toJsonText(was.monetary)) return `line ${i} moves ${toJsonText(line.monetary)}; the original's moves ${toJsonText(was.monetary)}`;
  }
  return null;
}

const readDocument = (text: string): Document | null => {
  try {
    return parseJson(text) as Document;
  } catch {
    return null;
  }
};

export async function checkReversals(k: Kysely<Database>, tenantName: (key: unknown) => string, tally: Tallied): Promise<void> {
  for await (const batch of rowsOf(k, 'transaction_reversals', ['tenant_id', 'transaction_id'])) {
    const ids = batch.flatMap((r) => [[String(r.tenant_id), String(r.transaction_id)], [String(r.tenant_id), String(r.reversal_id)]] as const);
    const documents = new Map(
      (
        await k
          .selectFrom('transactions')
          .select(['tenant_id', 'id', 'document'])
          .where((eb) => eb(eb.refTuple('tenant_id', 'id'), 'in', ids.map(([tenant, id]) => eb.tuple(tenant, id))))
          .execute()
      ).map((t) => [`${t.tenant_id}|${t.id}`, t.document]),
    );
    for (const link of batch) {
      tally.checked++;
      const tenant = String(link.tenant_id);
      const [originalId, reversalId] = [String(link.transaction_id), String(link.reversal_id)];
      const name = `the reversal of transaction ${originalId} of tenant ${tenantName(tenant)} by transaction ${reversalId}`;
      const original = documents.get(`${tenant}|${originalId}`);
      const reversal = documents.get(`${tenant}|${reversalId}`);
      if (original === undefined) tally.problem(`${name}: transaction ${originalId} is not a transaction of the tenant`);
      if (reversal === undefined) tally.problem(`${name}: transaction ${reversalId} is not a transaction of the tenant`);
      if (original === undefined || reversal === undefined) continue;
      const [was, is] = [readDocument(original), readDocument(reversal)];
      const broken = was && is ? mirrorBreak(was, is, originalId) : 'a document cannot be read';
      if (broken) tally.problem(`${name} does not mirror it: ${broken}`);
    }
  }
  await checkReversedOnce(k, tenantName, tally);
}

/** A transaction reversed twice, or a reversal that reverses two: only a link table without its keys can hold them. */
async function checkReversedOnce(k: Kysely<Database>, tenantName: (key: unknown) => string, tally: Tallied): Promise<void> {
  for (const column of ['transaction_id', 'reversal_id'] as const) {
    const twice = await k
      .selectFrom('transaction_reversals')
      .select(['tenant_id', column, (eb) => eb.fn.countAll().as('n')])
      .groupBy(['tenant_id', column])
      .having((eb) => eb.fn.countAll(), '>', 1)
      .execute();
    for (const row of twice) {
      const id = String((row as Record<string, unknown>)[column]);
      tally.problem(column === 'transaction_id' ? `transaction ${id} of tenant ${tenantName(row.tenant_id)} is reversed ${String(row.n)} times` : `transaction ${id} of tenant ${tenantName(row.tenant_id)} reverses ${String(row.n)} transactions`);
    }
  }
  // A rolled-back agent transaction's reversal is the one its link names.
  const rolledBack = await k
    .selectFrom('agent_transactions as a')
    .leftJoin('transaction_reversals as r', (join) => join.onRef('r.tenant_id', '=', 'a.tenant_id').onRef('r.transaction_id', '=', 'a.id'))
    .select(['a.tenant_id', 'a.id', 'a.reversal_transaction_id', 'r.reversal_id'])
    .where('a.reversal_transaction_id', 'is not', null)
    .execute();
  for (const a of rolledBack) {
    if (a.reversal_id !== a.reversal_transaction_id) {
      tally.problem(`agent transaction ${a.id} of tenant ${tenantName(a.tenant_id)} was rolled back by transaction ${a.reversal_transaction_id}, but its reversal record names ${a.reversal_id ?? 'none'}`);
    }
  }
}
