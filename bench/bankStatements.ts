// `BENCH_ONLY=bank-statements npm run bench`: bank statement import (issue 43, section 5), on SQLite and then on a
// throwaway local PostgreSQL 18 (BENCH_ENGINES=sqlite, or postgres, picks one). On each engine, one server on a fresh
// database:
//   1. a bank account (ASSET) is seeded with BENCH_STATEMENT_ENTRIES (100,000) DEBIT entries, each with a bank
//      reference `R-<i>` and an amount of its own, by atomic batches of postings against a REVENUE account (timed);
//   2. a camt.053.001.02 file of BENCH_STATEMENT_LINES (10,000) booked lines, money into the bank (CRDT), every other
//      one naming a seeded entry by reference (EndToEndId `R-<i>`, its amount) and the rest references and amounts no
//      entry has;
//   3. its import, timed, while another tenant posts 2-line transactions in 4 loops and reads /healthz
//      (bench/beside.ts, as the fairness scenarios do), and the server's RSS is sampled (bench/export.ts's rssMb);
//   4. the time per line against the account's size: fresh files of 1,000 lines (half matching) imported on an account
//      of 1,000 entries (another tenant's, a fresh account each time) and on the big one, in turn, the median of
//      BENCH_STATEMENT_SAMPLES (3) of each.
// Targets: µs per line on the big account at most 2x that on the small one; the other tenant's worst posting < 500 ms.
import { randomUUID } from 'node:crypto';
import { fairnessLine, fairnessTarget, LIGHT_LOAD, measureBeside, type FairnessRow } from './beside.js';
import { engineAsked, ENGINES, freshDb, type Engine } from './engines.js';
import { rssMb } from './export.js';
import type { Line, Scenario, Table } from './scenario.js';
import { makeTenant, named, seed } from './seed.js';
import { startServer, stopChild, type BenchServer } from './server.js';
import { median } from './stats.js';

const ENTRIES = Number(process.env.BENCH_STATEMENT_ENTRIES ?? 100_000);
const LINES = Number(process.env.BENCH_STATEMENT_LINES ?? 10_000);
const SAMPLES = Number(process.env.BENCH_STATEMENT_SAMPLES ?? 3);
/** The files and the small account of the time-per-line comparison. */
const SIZE_LINES = 1_000;
const SMALL_ENTRIES = 1_000;
/** Postings per seeding batch (atomic: one write of 1,000 lines, the most one takes), and batches in flight. */
const SEED_BATCH = 500;
const SEED_CONCURRENCY = 4;
/** The ratio of µs per line, big account against small, that issue 43 allows. */
const RATIO_TARGET = 2;
/** Seeded amounts are below this many cents; an unmatched line's amount is above it. */
const SEEDED_CENTS_MAX = 1_000_000;

interface ImportFigures {
  engine: Engine;
  entries: number;
  seedSeconds: number;
  lines: number;
  importSeconds: number;
  summary: Summary;
  expectedMatched: number;
  idleMb: number;
  peakMb: number;
  beside: FairnessRow;
  /** Median µs per line of the 1,000-line files on the small account and on the big one. */
  smallUsPerLine: number;
  bigUsPerLine: number;
}

interface Summary {
  matched: number;
  unmatched: number;
  ignored: number;
  duplicates: number;
  ledgerBalanceAtEnd: number;
  difference: number | null;
}

const ratioOf = (f: ImportFigures) => f.bigUsPerLine / f.smallUsPerLine;

/** An entry's amount in cents: from 1.00 to 9,999.99, spread over the seed, never an unmatched line's. */
const seededCents = (i: number) => 100 + ((i * 7919) % (SEEDED_CENTS_MAX - 100));
const decimal = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** Seeds `count` DEBIT entries on `bank` (bank reference `R-<i>`, amount seededCents(i)) against `revenue`, by atomic batches. */
async function seedEntries(url: string, rawKey: string, bank: string, revenue: string, count: number, log = false): Promise<void> {
  const headers = { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' };
  const line = (accountId: string, entryType: string, cents: number, bankReference?: string) => ({
    accountId,
    entryType,
    monetaryEntry: { type: 'FIAT', amount: decimal(cents), currency: 'USD', rail: 'ACH', ...(bankReference ? { bankReference } : {}) },
  });
  const batches = Math.ceil(count / SEED_BATCH);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < batches) {
        const first = next++ * SEED_BATCH;
        const transactions = Array.from({ length: Math.min(SEED_BATCH, count - first) }, (_, k) => {
          const i = first + k;
          return { idempotencyKey: randomUUID(), lines: [line(bank, 'DEBIT', seededCents(i), `R-${i}`), line(revenue, 'CREDIT', seededCents(i))] };
        });
        const res = await fetch(`${url}/api/v1/transactions/batch`, { method: 'POST', headers, body: JSON.stringify({ atomic: true, transactions }) });
        if (res.status !== 201) throw new Error(`a seeding batch answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        await res.arrayBuffer();
        if (log && ++done % Math.max(1, Math.round(batches / 10)) === 0) console.error(`  seeding: ${Math.min(count, done * SEED_BATCH).toLocaleString('en-US')} of ${count.toLocaleString('en-US')} entries`);
      }
    }),
  );
}

/** Entry indices 0…count-1 in a random order: the seeded entries the files name, each once. */
function shuffled(count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * A camt.053.001.02 file of one statement (as test/server/bank-statements.test.ts writes them) of `lines` booked lines
 * into the bank, today: line k names seeded entry `named[k / 2]` when k is even (EndToEndId `R-<i>`, its amount), and
 * an unknown reference and an amount above any entry's when odd. Each line's bank id (AcctSvcrRef) is the file's own.
 */
function camtFile(id: string, lines: number, named: readonly number[]): string {
  const today = new Date().toISOString().slice(0, 10);
  let totalCents = 0;
  const entries: string[] = [];
  for (let k = 0; k < lines; k++) {
    const matching = k % 2 === 0;
    const cents = matching ? seededCents(named[k / 2]!) : SEEDED_CENTS_MAX + Math.floor(Math.random() * 90_000_000);
    const endToEnd = matching ? `R-${named[k / 2]}` : `X-${randomUUID()}`;
    totalCents += cents;
    entries.push(`<Ntry>
  <Amt Ccy="USD">${decimal(cents)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
  <BookgDt><Dt>${today}</Dt></BookgDt><ValDt><Dt>${today}</Dt></ValDt>
  <AcctSvcrRef>${id}-${k}</AcctSvcrRef>
  <NtryDtls><TxDtls><Refs><EndToEndId>${endToEnd}</EndToEndId></Refs>
  <RltdPties><Dbtr><Nm>Payer ${k}</Nm></Dbtr><DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct></RltdPties>
  <RmtInf><Ustrd>Invoice ${k}</Ustrd></RmtInf></TxDtls></NtryDtls>
</Ntry>`);
  }
  const balance = (code: string, cents: number) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="USD">${decimal(cents)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${today}</Dt></Dt></Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt><GrpHdr><MsgId>${id}</MsgId><CreDtTm>${today}T08:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>${id}</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>${today}T08:00:00Z</CreDtTm>
<Acct><Id><IBAN>DE00</IBAN></Id><Ccy>USD</Ccy></Acct>
${balance('OPBD', 0)}
${balance('CLBD', totalCents)}
${entries.join('\n')}
</Stmt></BkToCstmrStmt></Document>`;
}

/** Imports a file into `account`; answers its summary and how long the request took (ms), or throws unless 201. */
async function importStatement(url: string, rawKey: string, account: string, file: string): Promise<{ summary: Summary; lineCount: number; ms: number }> {
  const began = performance.now();
  const res = await fetch(`${url}/api/v1/accounts/${account}/bank-statements`, { method: 'POST', headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/xml' }, body: file });
  const text = await res.text();
  const ms = performance.now() - began;
  if (res.status !== 201) throw new Error(`the import answered ${res.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { summary: Summary; lineCount: number };
  return { summary: body.summary, lineCount: body.lineCount, ms };
}

async function measureImport(engine: Engine): Promise<ImportFigures> {
  const mainMatching = Math.ceil(LINES / 2);
  const sizeMatching = Math.ceil(SIZE_LINES / 2);
  if (ENTRIES < mainMatching + SAMPLES * sizeMatching) {
    throw new Error(`BENCH_STATEMENT_ENTRIES=${ENTRIES} is too few: the files name ${mainMatching + SAMPLES * sizeMatching} entries of the account, each once`);
  }
  const fresh = await freshDb(engine, 'statements.db');
  let server: BenchServer | undefined;
  try {
    const tenants = await seed(fresh.db, async ({ ledger }) => ({
      bank: await makeTenant(ledger, 'statements', ['bank', { name: 'revenue', type: 'REVENUE' }]),
      // A fresh account of SMALL_ENTRIES for each sample, so that each file meets the same account.
      small: await makeTenant(ledger, 'small-statements', [...named('small-bank-', SAMPLES), { name: 'revenue', type: 'REVENUE' }]),
      light: await makeTenant(ledger, 'light', named('light-', 8)),
    }));
    const [bank, revenue] = tenants.bank.accounts as [string, string];
    const smallRevenue = tenants.small.accounts[SAMPLES]!;
    server = await startServer(fresh.db);
    const { url } = server;
    const pid = server.child.pid!;

    console.error(`  ${engine}: seeding ${ENTRIES.toLocaleString('en-US')} entries on the bank account (atomic batches of ${SEED_BATCH} postings, ${SEED_CONCURRENCY} in flight)`);
    const seedBegan = performance.now();
    await seedEntries(url, tenants.bank.rawKey, bank, revenue, ENTRIES, true);
    const seedSeconds = (performance.now() - seedBegan) / 1000;
    console.error(`  seeded ${ENTRIES.toLocaleString('en-US')} entries in ${seedSeconds.toFixed(1)} s (${Math.round(ENTRIES / seedSeconds)} postings/s)`);
    for (let s = 0; s < SAMPLES; s++) await seedEntries(url, tenants.small.rawKey, tenants.small.accounts[s]!, smallRevenue, SMALL_ENTRIES);

    // Which seeded entries each file names: the big file's, then each 1,000-line file's, none twice.
    const order = shuffled(ENTRIES);
    const mainFile = camtFile('BENCH-MAIN', LINES, order.slice(0, mainMatching));
    console.error(`  importing ${LINES.toLocaleString('en-US')} lines (${(Buffer.byteLength(mainFile) / 1024 / 1024).toFixed(1)} MB of camt.053) beside ${LIGHT_LOAD}`);

    const idleMb = rssMb(pid);
    let peakMb = idleMb;
    let imported: Awaited<ReturnType<typeof importStatement>> | undefined;
    const beside = await measureBeside(engine, `beside a ${LINES.toLocaleString('en-US')}-line bank statement import`, url, { rawKey: tenants.light.rawKey, accounts: tenants.light.accounts }, async () => {
      const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 20);
      const began = Date.now();
      try {
        imported = await importStatement(url, tenants.bank.rawKey, bank, mainFile);
      } finally {
        clearInterval(sampler);
      }
      peakMb = Math.max(peakMb, rssMb(pid));
      return { began, ended: Date.now(), heavy: `${imported.lineCount} lines, ${imported.summary.matched} matched` };
    });
    const { summary, ms } = imported!;
    const importSeconds = ms / 1000;
    console.error(
      `  imported in ${importSeconds.toFixed(2)} s (${Math.round(LINES / importSeconds)} lines/s): ${JSON.stringify(summary)}; ` +
        `server RSS ${idleMb.toFixed(0)} MB before, ${peakMb.toFixed(0)} MB at its peak`,
    );
    if (summary.matched !== mainMatching) console.error(`  the import matched ${summary.matched} lines; ${mainMatching} were made to match`);

    // Time per line against the account's size: the small account's file, then the big one's, in turn.
    const small: number[] = [];
    const big: number[] = [];
    for (let s = 0; s < SAMPLES; s++) {
      const smallFile = camtFile(`BENCH-SMALL-${s}`, SIZE_LINES, shuffled(SMALL_ENTRIES).slice(0, sizeMatching));
      const first = mainMatching + s * sizeMatching;
      const bigFile = camtFile(`BENCH-BIG-${s}`, SIZE_LINES, order.slice(first, first + sizeMatching));
      const onSmall = await importStatement(url, tenants.small.rawKey, tenants.small.accounts[s]!, smallFile);
      const onBig = await importStatement(url, tenants.bank.rawKey, bank, bigFile);
      for (const [label, r] of [['small', onSmall], ['big', onBig]] as const) {
        if (r.summary.matched !== sizeMatching) console.error(`  a ${SIZE_LINES}-line file on the ${label} account matched ${r.summary.matched} lines; ${sizeMatching} were made to match`);
      }
      small.push((onSmall.ms * 1000) / SIZE_LINES);
      big.push((onBig.ms * 1000) / SIZE_LINES);
    }
    const figures: ImportFigures = {
      engine,
      entries: ENTRIES,
      seedSeconds,
      lines: LINES,
      importSeconds,
      summary,
      expectedMatched: mainMatching,
      idleMb,
      peakMb,
      beside,
      smallUsPerLine: median(small),
      bigUsPerLine: median(big),
    };
    console.error(
      `  ${SIZE_LINES}-line files: ${figures.smallUsPerLine.toFixed(0)} µs a line on ${SMALL_ENTRIES.toLocaleString('en-US')} entries ` +
        `(${small.map((x) => x.toFixed(0)).join(', ')}), ${figures.bigUsPerLine.toFixed(0)} µs on ${ENTRIES.toLocaleString('en-US')} (${big.map((x) => x.toFixed(0)).join(', ')}): ${ratioOf(figures).toFixed(2)}x`,
    );
    return figures;
  } finally {
    await stopChild(server?.child);
    await fresh.drop();
  }
}

const IMPORT: Table = {
  title: 'Bank statement import (camt.053, issue 43)',
  columns: ['engine', 'entries on the account', 'seeding s (postings/s)', 'lines', 'import s', 'lines/s', 'matched (made to match)', 'unmatched', 'server RSS before, peak MB'],
  align: 'lrrrrrrrr',
};

const PER_LINE: Table = {
  title: `Bank statement import, time per line against the account's size (${SIZE_LINES.toLocaleString('en-US')}-line files, half matching, median of ${SAMPLES}; target: ratio <= ${RATIO_TARGET})`,
  columns: ['engine', `µs/line, ${SMALL_ENTRIES.toLocaleString('en-US')} entries`, `µs/line, ${ENTRIES.toLocaleString('en-US')} entries`, 'ratio', 'target'],
  align: 'lrrrl',
};

/** On each engine BENCH_ENGINES asks for; only when BENCH_ONLY names it. */
export const bankStatements: Scenario<ImportFigures>[] = ENGINES.map(
  (engine): Scenario<ImportFigures> => ({
    name: 'bank-statements',
    family: 'bank-statements',
    byDefault: false,
    enabled: () => engineAsked(engine),
    run: () => measureImport(engine),
    print: (f): Line[] => [
      {
        table: IMPORT,
        cells: [
          f.engine,
          f.entries.toLocaleString('en-US'),
          `${f.seedSeconds.toFixed(1)} (${Math.round(f.entries / f.seedSeconds)})`,
          f.lines.toLocaleString('en-US'),
          f.importSeconds.toFixed(2),
          Math.round(f.lines / f.importSeconds),
          `${f.summary.matched} (${f.expectedMatched})`,
          f.summary.unmatched,
          `${f.idleMb.toFixed(0)}, ${f.peakMb.toFixed(0)}`,
        ],
      },
      { table: PER_LINE, cells: [f.engine, f.smallUsPerLine.toFixed(0), f.bigUsPerLine.toFixed(0), `${ratioOf(f).toFixed(2)}x`, ratioOf(f) <= RATIO_TARGET ? 'met' : 'MISSED'] },
      fairnessLine(f.beside),
    ],
    targets: [
      {
        label: (f) =>
          `${f.engine}: bank statement import µs per line on ${f.entries.toLocaleString('en-US')} entries <= ${RATIO_TARGET}x on ${SMALL_ENTRIES.toLocaleString('en-US')} ` +
          `(${f.bigUsPerLine.toFixed(0)} µs against ${f.smallUsPerLine.toFixed(0)} µs: ${ratioOf(f).toFixed(2)}x)`,
        met: (f) => ratioOf(f) <= RATIO_TARGET,
      },
      { label: (f, all) => fairnessTarget.label(f.beside, all), met: (f, all) => fairnessTarget.met(f.beside, all) },
    ],
  }),
);
