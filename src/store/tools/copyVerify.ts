// What `ledger db copy` proves of a copy before it keeps it, inside the copy's transaction or on its temporary file,
// so a copy that fails is never seen; memory stays flat.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { countOf, rowsOf, type Table } from '../ledgerTables.js';
import { ChainVerifier, checkStoredRecord } from '../../core/audit.js';
import { toStoredAudit } from '../sql/mappers.js';
import { tenantNames, type TenantNames } from '../tenantNames.js';

export interface CopyProof {
  tenantsVerified: number;
  auditRecordsVerified: number;
  balancesVerified: number;
}

const failed = (message: string) => new Error(`Verification failed: ${message}`);

/** Every table holds as many rows as were copied into it. */
export async function verifyCounts(k: Kysely<Database>, copied: ReadonlyArray<{ table: Table; rows: number }>): Promise<void> {
  for (const { table, rows } of copied) {
    const counted = await countOf(k, table);
    if (counted !== rows) throw failed(`${table} has ${counted} rows on the target, ${rows} were copied.`);
  }
}

/**
 * Every kept balance equals the sum of its entries (debits minus credits), summed with bigint as the entries stream
 * by: memory holds one sum per account and asset, however many entries there are.
 */
export async function verifyBalances(k: Kysely<Database>, nameOf: TenantNames['nameOf']): Promise<number> {
  const kept = new Map<string, bigint>();
  for await (const batch of rowsOf(k, 'balances', ['tenant_id', 'account_id', 'asset'])) {
    for (const r of batch) kept.set(`${r.tenant_id}|${r.account_id}|${r.asset}`, BigInt(r.balance as string));
  }
  const sums = new Map<string, bigint>();
  for await (const batch of rowsOf(k, 'entries', ['seq'])) {
    for (const r of batch) {
      const slot = `${r.tenant_id}|${r.account_id}|${r.asset}`;
      const amount = BigInt(r.amount as string);
      sums.set(slot, (sums.get(slot) ?? 0n) + (r.entry_type === 'DEBIT' ? amount : -amount));
    }
  }
  const named = (slot: string) => {
    const [tenant, ...rest] = slot.split('|');
    return [nameOf(tenant), ...rest].join(' ');
  };
  for (const [slot, sum] of sums) {
    const balance = kept.get(slot);
    if (balance !== sum) throw failed(`the kept balance of ${named(slot)} is ${balance ?? 'missing'}, its entries sum to ${sum}.`);
  }
  for (const [slot, balance] of kept) {
    if (!sums.has(slot) && balance !== 0n) throw failed(`${named(slot)} keeps ${balance} with no entries.`);
  }
  return kept.size;
}

/**
 * Every tenant's audit chain recomputed from the copied rows, in one pass in commit order, by the rule
 * `ledger audit verify` applies (core/usecases/audit.ts): what the copy wrote is what the chain's hashes cover.
 */
export async function verifyChains(k: Kysely<Database>, nameOf: TenantNames['nameOf']): Promise<{ tenants: number; records: number }> {
  const verifiers = new Map<string, ChainVerifier>();
  let records = 0;
  for await (const batch of rowsOf(k, 'audit_log', ['seq'])) {
    for (const row of batch) {
      const tenant = nameOf(row.tenant_id);
      let verifier = verifiers.get(tenant);
      if (!verifier) verifiers.set(tenant, (verifier = new ChainVerifier(true)));
      const broken = checkStoredRecord(verifier, toStoredAudit(row as never));
      if (broken) throw failed(`the audit chain of tenant ${tenant} breaks at record ${broken.position} (${broken.id}) on the target: ${broken.reason}.`);
      records++;
    }
  }
  return { tenants: await countOf(k, 'tenants'), records };
}

/** The whole proof, in the order of its cost. */
export async function proveCopy(k: Kysely<Database>, copied: ReadonlyArray<{ table: Table; rows: number }>): Promise<CopyProof> {
  await verifyCounts(k, copied);
  const { nameOf } = await tenantNames(k);
  const balancesVerified = await verifyBalances(k, nameOf);
  const chains = await verifyChains(k, nameOf);
  return { tenantsVerified: chains.tenants, auditRecordsVerified: chains.records, balancesVerified };
}
