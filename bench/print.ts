// The bench's one printer: the tables of what ran, in markdown on stdout (each table where its first row came, the
// paragraphs of a table below it), then the targets, met or MISSED.
import type { Line, Table } from './scenario.js';

export function printTables(lines: readonly Line[]): void {
  const tables = new Map<Table, { rows: string[]; notes: string[] }>();
  for (const line of lines) {
    const table = tables.get(line.table) ?? { rows: [], notes: [] };
    tables.set(line.table, table);
    if ('note' in line) table.notes.push(line.note);
    else table.rows.push(`| ${line.cells.join(' | ')} |`);
  }
  for (const [table, { rows, notes }] of tables) {
    if (rows.length > 0) {
      console.log(table.title ? `\n## ${table.title}\n` : '');
      console.log(`| ${table.columns.join(' | ')} |`);
      console.log(`|${[...table.align].map((a) => (a === 'r' ? '---:' : '---')).join('|')}|`);
      for (const row of rows) console.log(row);
    }
    for (const note of notes) console.log(`\n${note}`);
  }
}

export function printTargets(targets: ReadonlyArray<{ label: string; met: boolean }>): void {
  if (targets.length === 0) return;
  console.log('\n## Targets\n');
  for (const { label, met } of targets) console.log(`- ${met ? 'met' : 'MISSED'}: ${label}`);
}
