// `BENCH_ONLY=bank-statements npm run bench`: bank statement import (issue 43, section 5), on SQLite and then on a
// throwaway local PostgreSQL 18 (BENCH_ENGINES=sqlite, or postgres, picks one). On each engine, one server on a fresh
// database:
//   1. a bank account (ASSET) is seeded with BENCH_STATEMENT_ENTRIES (100,000) DEBIT entries, each with a bank
//      reference `R-<i>` and an amount of its own, by atomic batches of postings against a REVENUE account (timed);
//   2. the time per line against the account's size: camt.053.001.02 files of 1,000 booked lines, money into the bank
//      (CRDT), every other one naming an entry by reference (EndToEndId `R-<i>`, its amount) and the rest references
//      and amounts no entry has, imported on an account of 1,000 entries (another tenant's, a fresh account each time)
//      and on the big one, in turn, the median of BENCH_STATEMENT_SAMPLES (3) of each: as the request's wall time per
//      line, and as the CPU per line (the server's writer thread, and PostgreSQL's processes on PostgreSQL, from /proc).
//      Each file is sent once the writer owes the write before it nothing (large writes take a share of the writer:
//      see `settle`), so that no file is timed waiting out another's share;
//   3. a file of BENCH_STATEMENT_LINES (10,000) such lines imported into the big account, timed, while another tenant
//      posts 2-line transactions in 4 loops and reads /healthz (bench/beside.ts, as the fairness scenarios do), and
//      the server's RSS is sampled (bench/export.ts's rssMb).
// Targets: µs per line on the big account at most 2x that on the small one; the other tenant's worst posting < 500 ms.
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import pg from 'pg';
import { fairnessLine, fairnessTarget, LIGHT_LOAD, measureBeside, type FairnessRow } from './beside.js';
import { cpuMeter, machineMeter } from './cpu.js';
import { engineAsked, ENGINES, freshDb, type Engine } from './engines.js';
import { rssMb } from './export.js';
import { LARGE_WRITE_SHARE_FACTOR } from '../src/core/limits.js';
import { sleep, type Line, type Scenario, type Table } from './scenario.js';
import { makeTenant, named, seed } from './seed.js';
import { startServer, stopChild, type BenchServer } from './server.js';
import { median } from './stats.js';

const ENTRIES = Number(process.env.BENCH_STATEMENT_ENTRIES ?? 100_000);
const LINES = Number(process.env.BENCH_STATEMENT_LINES ?? 10_000);
const SAMPLES = Number(process.env.BENCH_STATEMENT_SAMPLES ?? 3);
/** BENCH_STATEMENT_ANALYZE=0: PostgreSQL's statistics are left as the seed left them (see `analyzed`). */
const ANALYZE = process.env.BENCH_STATEMENT_ANALYZE !== '0';
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
  /** Median µs per line (the request's wall time) of the 1,000-line files on the small account and on the big one. */
  smallUsPerLine: number;
  bigUsPerLine: number;
  /** Median CPU per line of the same files: the writer's, with PostgreSQL's on PostgreSQL. */
  smallCpuUsPerLine: number;
  bigCpuUsPerLine: number;
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
const cpuRatioOf = (f: ImportFigures) => f.bigCpuUsPerLine / f.smallCpuUsPerLine;

/** An entry's amount in cents: from 1.00 to 9,999.99, spread over the seed, never an unmatched line's. */
const seededCents = (i: number) => 100 + ((i * 7919) % (SEEDED_CENTS_MAX - 100));
const decimal = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** Seeds `count` DEBIT entries on `bank` (bank reference `R-<i>`, amount seededCents(i)) against `revenue`, by atomic batches. */
async function seedEntries(url: string, rawKey: string, bank: string, revenue: string, count: number, log = false): Promise<number> {
  const headers = { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' };
  const line = (accountId: string, entryType: string, cents: number, bankReference?: string) => ({
    accountId,
    entryType,
    monetaryEntry: { type: 'FIAT', amount: decimal(cents), currency: 'USD', rail: 'ACH', ...(bankReference ? { bankReference } : {}) },
  });
  const batches = Math.ceil(count / SEED_BATCH);
  let next = 0;
  let done = 0;
  let slowestMs = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < batches) {
        const first = next++ * SEED_BATCH;
        const transactions = Array.from({ length: Math.min(SEED_BATCH, count - first) }, (_, k) => {
          const i = first + k;
          return { idempotencyKey: randomUUID(), lines: [line(bank, 'DEBIT', seededCents(i), `R-${i}`), line(revenue, 'CREDIT', seededCents(i))] };
        });
        const began = performance.now();
        const res = await fetch(`${url}/api/v1/transactions/batch`, { method: 'POST', headers, body: JSON.stringify({ atomic: true, transactions }) });
        if (res.status !== 201) throw new Error(`a seeding batch answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        await res.arrayBuffer();
        slowestMs = Math.max(slowestMs, performance.now() - began);
        if (log && ++done % Math.max(1, Math.round(batches / 10)) === 0) console.error(`  seeding: ${Math.min(count, done * SEED_BATCH).toLocaleString('en-US')} of ${count.toLocaleString('en-US')} entries`);
      }
    }),
  );
  return slowestMs;
}

/**
 * Waits until the server's writer owes a large write that took `ms` (a seeding batch, an import) nothing: after a
 * large write of D ms, the next waits LARGE_WRITE_SHARE_FACTOR x D while small writes are being made, so that an
 * import timed right after another would be timed waiting out the other's share. `ms`, the request's time, bounds D.
 */
const settle = (ms: number) => sleep(LARGE_WRITE_SHARE_FACTOR * ms);

/**
 * On PostgreSQL, ANALYZE once the accounts are seeded, as autovacuum does for a table that has grown (a minute or so
 * after a bulk load). Right after the load, without statistics, the planner reads a reference's entries through
 * another index, over every entry of the tenant (6.7 ms at 5,000 entries against 0.06 ms after ANALYZE). SQLite has
 * no autovacuum and the server runs no ANALYZE: there the plans are those of a database without statistics.
 */
async function analyzed(engine: Engine, db: string): Promise<void> {
  if (engine !== 'PostgreSQL' || !ANALYZE) return;
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
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
    // On one line, without a value date or the payer's account (both optional): 50,000 such entries fit the 20 MiB a
    // statement may have.
    entries.push(
      `<Ntry><Amt Ccy="USD">${decimal(cents)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${today}</Dt></BookgDt>` +
        `<AcctSvcrRef>${id}-${k}</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>${endToEnd}</EndToEndId></Refs>` +
        `<RltdPties><Dbtr><Nm>Payer ${k}</Nm></Dbtr></RltdPties>` +
        `<RmtInf><Ustrd>Invoice ${k}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    );
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

/**
 * Imports a file into `account` with node:http: no time-out, since an import waits its share of the writer for as long
 * as it takes (fetch gives up after 300 s). Answers its summary, lines and how long the request took (ms); throws unless 201.
 */
function importStatement(url: string, rawKey: string, account: string, file: string): Promise<{ summary: Summary; lineCount: number; ms: number }> {
  const began = performance.now();
  const headers = { authorization: `Bearer ${rawKey}`, 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(file)) };
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/accounts/${account}/bank-statements`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => {
        const ms = performance.now() - began;
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 201) return reject(new Error(`the import answered ${res.statusCode}: ${text.slice(0, 300)}`));
        const body = JSON.parse(text) as { summary: Summary; lineCount: number };
        resolve({ summary: body.summary, lineCount: body.lineCount, ms });
      });
    });
    req.once('error', reject);
    req.end(file);
  });
}

/** What the lines of an import cost in CPU, from /proc: the server's writer thread, and PostgreSQL's processes (none on SQLite). */
interface LineCpu {
  writerUs: number;
  postgresUs: number;
}

/** Starts measuring the CPU of an import on the server `pid`; `stop` answers it per line. */
function lineCpu(pid: number): { stop(lines: number): LineCpu } {
  const server = cpuMeter([pid]);
  const machine = machineMeter();
  return { stop: (lines) => ({ writerUs: server.stop(lines)?.writerUsPerCommand ?? Number.NaN, postgresUs: machine.stop(lines)?.postgresUsPerRequest ?? Number.NaN }) };
}

/** The writer's CPU per line, and PostgreSQL's beside it: what matching a line costs, whatever the writer waited. */
const matchingUs = (c: LineCpu, engine: Engine) => c.writerUs + (engine === 'PostgreSQL' ? c.postgresUs : 0);

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
    let slowestWriteMs = await seedEntries(url, tenants.bank.rawKey, bank, revenue, ENTRIES, true);
    const seedSeconds = (performance.now() - seedBegan) / 1000;
    console.error(`  seeded ${ENTRIES.toLocaleString('en-US')} entries in ${seedSeconds.toFixed(1)} s (${Math.round(ENTRIES / seedSeconds)} postings/s)`);
    for (let s = 0; s < SAMPLES; s++) slowestWriteMs = Math.max(slowestWriteMs, await seedEntries(url, tenants.small.rawKey, tenants.small.accounts[s]!, smallRevenue, SMALL_ENTRIES));
    await analyzed(engine, fresh.db);
    await settle(slowestWriteMs);

    // Which seeded entries each file names: each 1,000-line file's, then the big file's, none twice.
    const order = shuffled(ENTRIES);

    // Time per line against the account's size: the small account's file, then the big one's, in turn, each once the
    // writer owes the one before nothing.
    const small: number[] = [];
    const big: number[] = [];
    const smallCpu: number[] = [];
    const bigCpu: number[] = [];
    const timed = async (rawKey: string, account: string, file: string, label: string, wall: number[], cpuPerLine: number[]) => {
      const cpu = lineCpu(pid);
      const r = await importStatement(url, rawKey, account, file);
      cpuPerLine.push(matchingUs(cpu.stop(SIZE_LINES), engine));
      wall.push((r.ms * 1000) / SIZE_LINES);
      if (r.summary.matched !== sizeMatching) console.error(`  a ${SIZE_LINES}-line file on the ${label} account matched ${r.summary.matched} lines; ${sizeMatching} were made to match`);
      await settle(r.ms);
    };
    for (let s = 0; s < SAMPLES; s++) {
      await timed(tenants.small.rawKey, tenants.small.accounts[s]!, camtFile(`BENCH-SMALL-${s}`, SIZE_LINES, shuffled(SMALL_ENTRIES).slice(0, sizeMatching)), 'small', small, smallCpu);
      await timed(tenants.bank.rawKey, bank, camtFile(`BENCH-BIG-${s}`, SIZE_LINES, order.slice(s * sizeMatching, (s + 1) * sizeMatching)), 'big', big, bigCpu);
    }
    console.error(
      `  ${SIZE_LINES}-line files: ${median(small).toFixed(0)} µs a line on ${SMALL_ENTRIES.toLocaleString('en-US')} entries (${small.map((x) => x.toFixed(0)).join(', ')}), ` +
        `${median(big).toFixed(0)} µs on ${ENTRIES.toLocaleString('en-US')} (${big.map((x) => x.toFixed(0)).join(', ')}): ${(median(big) / median(small)).toFixed(2)}x; ` +
        `CPU a line ${median(smallCpu).toFixed(0)} µs (${smallCpu.map((x) => x.toFixed(0)).join(', ')}) and ${median(bigCpu).toFixed(0)} µs (${bigCpu.map((x) => x.toFixed(0)).join(', ')}): ${(median(bigCpu) / median(smallCpu)).toFixed(2)}x`,
    );

    // The big import, beside the other tenant's load.
    const mainFile = camtFile('BENCH-MAIN', LINES, order.slice(SAMPLES * sizeMatching, SAMPLES * sizeMatching + mainMatching));
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
      smallCpuUsPerLine: median(smallCpu),
      bigCpuUsPerLine: median(bigCpu),
    };
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
  columns: [
    'engine',
    `µs/line, ${SMALL_ENTRIES.toLocaleString('en-US')} entries`,
    `µs/line, ${ENTRIES.toLocaleString('en-US')} entries`,
    'ratio',
    `CPU µs/line, ${SMALL_ENTRIES.toLocaleString('en-US')} entries`,
    `CPU µs/line, ${ENTRIES.toLocaleString('en-US')} entries`,
    'CPU ratio',
    'target',
  ],
  align: 'lrrrrrrl',
};

/** Below the table, once: what its two kinds of figure are. */
const PER_LINE_NOTE =
  "µs/line: the request's wall time over its lines. A file is written 500 lines a write, and after a large write of D ms the next " +
  'waits 5 D while small writes are being made (its own first write is one), so a file whose first part takes under 500 ms waits ' +
  "between its parts and one whose part takes longer does not. CPU µs/line: the writer thread's CPU (and PostgreSQL's, on " +
  "PostgreSQL) over the import, per line: what matching and writing a line cost, whatever the writer waited. Each file is sent " +
  'once the writer owes the import before it nothing.';

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
      {
        table: PER_LINE,
        cells: [
          f.engine,
          f.smallUsPerLine.toFixed(0),
          f.bigUsPerLine.toFixed(0),
          `${ratioOf(f).toFixed(2)}x`,
          f.smallCpuUsPerLine.toFixed(0),
          f.bigCpuUsPerLine.toFixed(0),
          `${cpuRatioOf(f).toFixed(2)}x`,
          ratioOf(f) <= RATIO_TARGET ? 'met' : 'MISSED',
        ],
      },
      ...(f.engine === ENGINES.find(engineAsked) ? [{ table: PER_LINE, note: PER_LINE_NOTE }] : []),
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
