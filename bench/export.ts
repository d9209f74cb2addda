// `BENCH_ONLY=export`: the audit export of the seeded tenant (bench/seeded.ts), read whole as a client would, on a
// server of its own freshly started on the seeded database, so that its memory figure is the export's and not what
// the loads before left behind: its records a second, and the server's RSS before and at its peak.
import { existsSync, readFileSync } from 'node:fs';
import { RECONCILIATION_AND_EXPORT } from './history.js';
import type { Scenario } from './scenario.js';
import { seededDb } from './seeded.js';
import { startServer, stopChild } from './server.js';

const EXPORT_RSS_LIMIT_MB = 200;

/** Resident memory of a process in MB, where /proc tells it (Linux). */
export function rssMb(pid: number): number {
  const status = `/proc/${pid}/status`;
  if (!existsSync(status)) return Number.NaN;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Reads the whole audit export of the tenant as a client would, counting records, while sampling the server's memory. */
async function exportAll(url: string, headers: Record<string, string>, pid: number) {
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 20);
  const began = performance.now();
  let records = 0;
  let bytes = 0;
  try {
    const res = await fetch(`${url}/api/v1/compliance/audit-export?from=1700-01-01T00:00:00Z&to=9999-12-31T23:59:59Z`, { headers });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) records++;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - began) / 1000;
  return { records, seconds, mb: bytes / 1024 / 1024, peakMb: Math.max(peakMb, rssMb(pid)) };
}

interface ExportFigures {
  records: number;
  seconds: number;
  mb: number;
  peakMb: number;
  idleMb: number;
  /** The entries the seed was asked for: fewer than 1,000,000 make fewer records. */
  entries: number;
}

export const auditExport: Scenario<ExportFigures> = {
  name: 'export',
  family: 'export',
  setup: [seededDb],
  async run(ctx) {
    const { dbPath, rawKey, entries } = await ctx.use(seededDb);
    const server = await startServer(dbPath);
    try {
      const pid = server.child.pid!;
      const idleMb = rssMb(pid);
      console.error(`audit export: every record of the tenant, streamed (fresh server, RSS before: ${idleMb.toFixed(0)} MB)`);
      const exported = await exportAll(server.url, { authorization: `Bearer ${rawKey}` }, pid);
      console.error(
        `  ${exported.records.toLocaleString('en-US')} records (${exported.mb.toFixed(0)} MB) in ${exported.seconds.toFixed(1)} s; server RSS ${idleMb.toFixed(0)} MB before, ${exported.peakMb.toFixed(0)} MB at its peak`,
      );
      return { ...exported, idleMb, entries };
    } finally {
      await stopChild(server.child);
    }
  },
  print: (e) => [
    {
      table: RECONCILIATION_AND_EXPORT,
      cells: ['audit export', `${e.records.toLocaleString('en-US')} records (${e.mb.toFixed(0)} MB) in ${e.seconds.toFixed(1)} s = ${Math.round(e.records / e.seconds).toLocaleString('en-US')} records/s`],
    },
    { table: RECONCILIATION_AND_EXPORT, cells: ['server RSS: before the export, peak during it', `${e.idleMb.toFixed(0)} MB, ${e.peakMb.toFixed(0)} MB`] },
  ],
  targets: [
    { label: (e) => `audit export of at least 1,000,000 records (${e.records.toLocaleString('en-US')})`, met: (e) => e.records >= 1_000_000 || e.entries < 1_000_000 },
    { label: (e) => `server RSS during the export < ${EXPORT_RSS_LIMIT_MB} MB (${e.peakMb.toFixed(0)} MB)`, met: (e) => e.peakMb < EXPORT_RSS_LIMIT_MB },
  ],
};
