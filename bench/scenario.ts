// A row of the bench's table (bench/run.ts): a scenario, what it runs on, what it measures, how its figures print
// and the targets they are judged by.
import type { LoadRow } from './load.js';

/** A table of the printed report: `## title` above it (none for an untitled one), its columns, each 'l' or 'r' aligned. */
export interface Table {
  title?: string;
  columns: readonly string[];
  align: string;
}

/** What a scenario gives the printer: a row of a table, or a paragraph printed below that table. */
export type Line = { table: Table; cells: ReadonlyArray<string | number> } | { table: Table; note: string };

/** The figures of the scenarios run so far, and every autocannon load among them. */
export interface Results {
  of<F>(scenario: Scenario<F>): F | undefined;
  readonly loads: readonly LoadRow[];
}

/** What several scenarios run on (a seeded database, a server, a PostgreSQL): started once, stopped after the last. */
export interface Fixture<T> {
  name: string;
  /** The fixtures it is built on, kept as long as it is. */
  uses?: ReadonlyArray<Fixture<any>>;
  start(ctx: Context): Promise<T>;
  stop(value: T): Promise<void>;
}

export interface Context {
  /** The scenarios of this run, in the table's order. */
  readonly picked: readonly Scenario[];
  /** A fixture's value, started at its first use. */
  use<T>(fixture: Fixture<T>): Promise<T>;
  readonly results: Results;
  /** Where bench/load.ts records each load it measures. */
  readonly loads: LoadRow[];
}

/** A figure judged against its bound: printed `- met: label` or `- MISSED: label` at the end. */
export interface Target<F> {
  label(figures: F, all: Results): string;
  met(figures: F, all: Results): boolean;
  /** Judged only when this holds (the scenarios it compares with ran); always by default. */
  when?(figures: F, all: Results): boolean;
}

export interface Scenario<F = unknown> {
  /** What BENCH_ONLY names it by; the rows of one scenario on several engines share it. */
  name: string;
  /** BENCH_ONLY names a family for all its rows. */
  family: string;
  /** Whether a run without BENCH_ONLY has it (yes unless said). */
  byDefault?: boolean | (() => boolean);
  /** Left out even when picked (BENCH_HOT, BENCH_FAIR, BENCH_READS, BENCH_ENGINES, BENCH_PG pick among rows). */
  enabled?(): boolean;
  /** Started before it runs unless already running; each is stopped once no scenario left to run names it. */
  setup?: ReadonlyArray<Fixture<any>>;
  run(ctx: Context): Promise<F>;
  print?(figures: F, all: Results): Line[];
  targets?: ReadonlyArray<Target<F>>;
}

/** Whether `scenario` needs `fixture`, itself or through the fixtures it names. */
export function needs(scenario: Scenario, fixture: Fixture<unknown>): boolean {
  const within = (list: ReadonlyArray<Fixture<unknown>>): boolean => list.some((f) => f === fixture || within(f.uses ?? []));
  return within(scenario.setup ?? []);
}

/** Waits `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
