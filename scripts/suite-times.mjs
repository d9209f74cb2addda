#!/usr/bin/env node
// Where the tests' time goes: seconds per folder of test/ and per file, slowest first, a column per report, from
// vitest's JSON reports (`--reporter=json --outputFile.json=<file>`, or those `.ci/run` keeps with
// LEDGER_CI_REPORTS=<folder>) or from the default reporter's output saved to a file (any name not ending in .json).
//   node scripts/suite-times.mjs [label=]report.json|run.log ... [--files N]   (npm run test:times -- ...)
// In a JSON report a file's time is its span (endTime - startTime), which counts its tests alone; the default
// reporter's line for a file (`✓ sqlite test/x.test.ts (9 tests) 30292ms`) counts its hooks too, a server's start in
// beforeAll among them, so a log gives the fuller figure. A run over both projects (CI's node20) names a file once per
// project: its time is then both engines together. Files run side by side (two at a time), so a column's sum exceeds
// the run's length. `--files N` lists the N slowest files (15 unless told).
import { readFileSync } from 'node:fs';
import { basename, dirname, relative } from 'node:path';

const args = process.argv.slice(2);
let top = 15;
const reports = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--files') top = Number(args[++i]);
  else {
    const at = args[i].indexOf('=');
    const [label, file] = at > 0 ? [args[i].slice(0, at), args[i].slice(at + 1)] : [basename(args[i]).replace(/\.[^.]+$/, ''), args[i]];
    reports.push({ label, file });
  }
}
if (reports.length === 0) {
  console.error('usage: node scripts/suite-times.mjs [label=]report.json ... [--files N]');
  process.exit(2);
}

/** Seconds per test file of one report or log, by path from the project's root. */
function fileTimes(path) {
  if (!path.endsWith('.json')) return logTimes(path);
  const report = JSON.parse(readFileSync(path, 'utf8'));
  const times = new Map();
  for (const suite of report.testResults ?? []) {
    const span = suite.endTime && suite.startTime ? suite.endTime - suite.startTime : undefined;
    const ms = span ?? (suite.assertionResults ?? []).reduce((sum, t) => sum + (t.duration ?? 0), 0);
    const name = relative(process.cwd(), suite.name);
    times.set(name, (times.get(name) ?? 0) + ms / 1000);
  }
  return times;
}

/** The same from the default reporter's lines, one per file (colours stripped). */
function logTimes(path) {
  const times = new Map();
  const text = readFileSync(path, 'utf8').replace(/\x1b\[[0-9;]*m/g, '');
  for (const [, name, ms] of text.matchAll(/^ +[✓❯×↓] +(?:\w+ +)?(test\/\S+\.test\.ts) \([^)]*\)(?: (\d+)ms)?$/gm))
    times.set(name, (times.get(name) ?? 0) + Number(ms ?? 0) / 1000);
  return times;
}

const runs = reports.map(({ label, file }) => ({ label, times: fileTimes(file) }));
const folderOf = (file) => `${dirname(file)}/`;
const folders = new Map();
for (const [i, run] of runs.entries())
  for (const [file, s] of run.times) {
    const row = folders.get(folderOf(file)) ?? { files: new Set(), seconds: runs.map(() => 0) };
    row.files.add(file);
    row.seconds[i] += s;
    folders.set(folderOf(file), row);
  }
const total = (row) => row.seconds.reduce((a, b) => a + b, 0);
const fmt = (s) => (s === 0 ? '–' : s < 10 ? s.toFixed(1) : Math.round(s).toString());

console.log(`| Folder | Files | ${runs.map((r) => `${r.label} (s)`).join(' | ')} |`);
console.log(`| --- | ---: | ${runs.map(() => '---:').join(' | ')} |`);
for (const [folder, row] of [...folders].sort((a, b) => total(b[1]) - total(a[1])))
  console.log(`| \`${folder}\` | ${row.files.size} | ${row.seconds.map(fmt).join(' | ')} |`);
console.log(`| all | ${[...folders.values()].reduce((n, r) => n + r.files.size, 0)} | ${runs.map((r) => fmt([...r.times.values()].reduce((a, b) => a + b, 0))).join(' | ')} |`);

console.log('');
const files = new Map();
for (const [i, run] of runs.entries())
  for (const [file, s] of run.times) {
    const row = files.get(file) ?? runs.map(() => 0);
    row[i] += s;
    files.set(file, row);
  }
console.log(`| File (the ${top} slowest) | ${runs.map((r) => `${r.label} (s)`).join(' | ')} |`);
console.log(`| --- | ${runs.map(() => '---:').join(' | ')} |`);
for (const [file, seconds] of [...files].sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0)).slice(0, top))
  console.log(`| \`${file.replace(/^test\//, '').replace(/\.test\.ts$/, '')}\` | ${seconds.map(fmt).join(' | ')} |`);
