// Core knows no HTTP, no SQL, no chain SDK and no file system: this fails the build when it starts to. Every SQLite
// file is opened in one place, and every CSV is written by one writer.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = join(process.cwd(), 'src', 'core');

const forbidden: Array<[string, RegExp]> = [
  ['kysely', /^kysely(\/.*)?$/],
  ['h3', /^h3(\/.*)?$/],
  ['better-sqlite3', /^better-sqlite3(\/.*)?$/],
  ['commander', /^commander(\/.*)?$/],
  ['viem', /^viem(\/.*)?$/],
  ['tronweb', /^tronweb(\/.*)?$/],
  ['@solana/*', /^@solana\//],
  ['node:fs', /^(node:)?fs(\/promises)?$/],
];

/** Every module specifier of static imports, re-exports, dynamic imports and require calls. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bimport\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g,
    /\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(m|c)?[jt]sx?$/.test(entry.name) ? [path] : [];
  });
}

describe('architecture: src/core depends on nothing outside', () => {
  it('the import scanner sees every import form', () => {
    const sample = [
      "import { Kysely } from 'kysely';",
      'import type { H3Event } from "h3";',
      "import Database from 'better-sqlite3';",
      "import * as fs from 'node:fs';",
      "import 'viem';",
      "export { x } from '@solana/web3.js';",
      "export * from 'tronweb';",
      "const c = await import('commander');",
      "const f = require('fs');",
      "import {\n  a,\n  b,\n} from 'fs/promises';",
    ].join('\n');
    const got = specifiers(sample);
    expect(got).toEqual(expect.arrayContaining(['kysely', 'h3', 'better-sqlite3', 'node:fs', 'viem', '@solana/web3.js', 'tronweb', 'commander', 'fs', 'fs/promises']));
    for (const s of ['kysely', 'h3', 'better-sqlite3', 'node:fs', 'viem', '@solana/web3.js', 'tronweb', 'commander', 'fs', 'fs/promises']) {
      expect(forbidden.some(([, re]) => re.test(s)), s).toBe(true);
    }
    expect(forbidden.some(([, re]) => re.test('node:crypto'))).toBe(false);
    expect(forbidden.some(([, re]) => re.test('./h3ish.js'))).toBe(false);
  });

  it('no file under src/core imports kysely, h3, better-sqlite3, commander, viem, tronweb, @solana/* or node:fs', () => {
    const files = sourceFiles(CORE);
    expect(files.length).toBeGreaterThan(5);
    const violations: string[] = [];
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const hit = forbidden.find(([, re]) => re.test(spec));
        if (hit) violations.push(`${relative(process.cwd(), file)} imports ${spec} (${hit[0]})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('no file under src/core imports from server, store or cli', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(CORE)) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (/(^|\/)(server|store|cli)\//.test(spec) && spec.startsWith('.')) violations.push(`${relative(process.cwd(), file)} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });
});

describe('architecture: the workers call use-cases only', () => {
  const WORKERS = join(process.cwd(), 'src', 'workers');

  it('no file under src/workers imports from server, store or cli: they reach the ledger through core alone', () => {
    const files = sourceFiles(WORKERS);
    expect(files.length).toBeGreaterThan(5);
    const violations: string[] = [];
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (/(^|\/)(server|store|cli)\//.test(spec) && spec.startsWith('.')) violations.push(`${relative(process.cwd(), file)} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('the server holds no worker: it imports the workers only through src/workers/index.ts and the URL and address rules it shares', () => {
    const allowed = new Set(['workers/index.js', 'workers/webhooks/urlPolicy.js', 'workers/chains/addresses.js']);
    const violations: string[] = [];
    for (const file of sourceFiles(join(process.cwd(), 'src', 'server'))) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const at = spec.indexOf('workers/');
        if (at >= 0 && !allowed.has(spec.slice(at))) violations.push(`${relative(process.cwd(), file)} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });
});

describe('architecture: every SQLite file is opened through src/store/sqlite/files.ts', () => {
  it('no other file under src constructs a better-sqlite3 connection: one that did would create its file 0644', () => {
    const opener = join(process.cwd(), 'src', 'store', 'sqlite', 'files.ts');
    const violations = sourceFiles(join(process.cwd(), 'src'))
      .filter((file) => file !== opener && /\bnew\s+BetterSqlite3\s*\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(process.cwd(), file));
    expect(violations).toEqual([]);
    expect(readFileSync(opener, 'utf8')).toMatch(/\bnew\s+BetterSqlite3\s*\(/);
  });
});

describe('architecture: every CSV is written by src/core/csv.ts', () => {
  it('no other module of src or bench imports csv-stringify: a new CSV goes through the writer and its formula rule', () => {
    const writer = join(process.cwd(), 'src', 'core', 'csv.ts');
    const importers = ['src', 'bench']
      .flatMap((dir) => sourceFiles(join(process.cwd(), dir)))
      .filter((file) => specifiers(readFileSync(file, 'utf8')).some((spec) => /^csv-stringify(\/.*)?$/.test(spec)))
      .map((file) => relative(process.cwd(), file));
    expect(importers).toEqual([relative(process.cwd(), writer)]);
  });
});

describe('architecture: the small untanglings of issue 42 stay untangled', () => {
  const read = (...path: string[]) => specifiers(readFileSync(join(process.cwd(), 'src', ...path), 'utf8'));

  it("core/enums.ts imports nothing: the console's bundle and every floor take the API's closed lists from it", () => {
    expect(read('core', 'enums.ts')).toEqual([]);
  });

  it('the domain rules (agent, hold, policy, settlement, the audit chain) import neither the answers nor the views: views.ts holds every view', () => {
    for (const file of ['agent.ts', 'hold.ts', 'policy.ts', 'settlement.ts', 'auditChain.ts']) {
      expect(read('core', file).filter((spec) => /\/(responses|views|audit)\.js$/.test(spec)), file).toEqual([]);
    }
  });

  it("store/open.ts only dispatches: each engine's opener is loaded when its --db is named, and both assemble the ledger through store/assemble.ts", () => {
    expect(read('store', 'open.ts').filter((spec) => /^\.\/(sqlite|postgres)\//.test(spec))).toEqual(['./postgres/open.js', './sqlite/open.js']);
    expect(read('store', 'openWriter.ts').filter((spec) => /^\.\/(sqlite|postgres)\//.test(spec))).toEqual(['./postgres/writer.js', './sqlite/writer.js']);
    for (const engine of ['sqlite', 'postgres']) expect(read('store', engine, 'open.ts')).toContain('../assemble.js');
    expect(read('store', 'postgres', 'open.ts')).not.toContain('../open.js');
  });

  it("the writer is the same on every engine: nothing under store/writer/ imports an engine's folder, and the store's root holds no writer or tool", () => {
    const writer = join(process.cwd(), 'src', 'store', 'writer');
    const engineImports = sourceFiles(writer).flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((spec) => /\/(sqlite|postgres)\//.test(spec))
        .map((spec) => `${relative(process.cwd(), file)} imports ${spec}`),
    );
    expect(engineImports).toEqual([]);
    const root = readdirSync(join(process.cwd(), 'src', 'store')).filter((name) => name.endsWith('.ts'));
    expect(root.filter((name) => /^(groupCommit|localWriter|threadWriter|threadProtocol|writer-thread|check|checkReversals|copy|copyChecks|copyVerify)\.ts$/.test(name))).toEqual([]);
  });

  it('core/ports/<domain>.ts is what the store gives one domain: it imports no use-case, no command and not the composition core/ports.ts', () => {
    const ports = join(process.cwd(), 'src', 'core', 'ports');
    const violations = sourceFiles(ports).flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((spec) => /(^|\/)(usecases|commands)\//.test(spec) || /^\.\.\/(ports|commands|ledger)\.js$/.test(spec))
        .map((spec) => `${relative(process.cwd(), file)} imports ${spec}`),
    );
    expect(violations).toEqual([]);
  });

  it('the store implements the ports by the same list of domains: store/sql/domains/<domain>.ts for each core/ports/<domain>.ts, importing it', () => {
    const names = (...dir: string[]) => readdirSync(join(process.cwd(), 'src', ...dir)).filter((name) => name.endsWith('.ts'));
    // rows.ts: the list shapes every port shares, no domain's.
    expect(names('store', 'sql', 'domains')).toEqual(names('core', 'ports').filter((name) => name !== 'rows.ts'));
    for (const name of names('store', 'sql', 'domains')) {
      expect(read('store', 'sql', 'domains', name), name).toContain(`../../../core/ports/${name.replace(/\.ts$/, '.js')}`);
    }
  });

  it('the console copies no list of the API: it has no enums of its own', () => {
    expect(sourceFiles(join(process.cwd(), 'src', 'console')).map((file) => relative(process.cwd(), file))).not.toContain('src/console/enums.ts');
  });

  it("the console copies no answer of the API: its types are the server's response schemas, taken as types alone", () => {
    const consoleFiles = srcFiles().filter((file) => file.startsWith('src/console/'));
    for (const file of consoleFiles) {
      expect(importsOf(file, true), file).not.toContain('src/core/responses.ts');
      // An answer's shape written by hand: an interface with the createdAt every resource of the API carries.
      expect(readFileSync(join(process.cwd(), file), 'utf8'), file).not.toMatch(/interface \w+ \{[^}]*\bcreatedAt: string/);
    }
    expect(importsOf('src/console/answers.ts', false)).toContain('src/core/responses.ts');
  });
});

/** The source files of src/ (the console's among them), by path relative to the project. */
const SRC = join(process.cwd(), 'src');
const srcFiles = () => sourceFiles(SRC).map((file) => relative(process.cwd(), file));

/** The files of src/ a file imports (`runtime`: leaving out what `import type` and `export type` bring, which no run loads). */
function importsOf(file: string, runtime: boolean): string[] {
  const source = readFileSync(join(process.cwd(), file), 'utf8');
  const specs = runtime
    ? [...source.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\bfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm)].map((m) => (m[1] ?? m[2])!)
    : specifiers(source).filter((spec) => spec.startsWith('.'));
  return specs.flatMap((spec) => {
    const base = join(dirname(file), spec).replace(/\.js$/, '');
    return ['.ts', '.tsx'].map((ext) => base + ext).filter((candidate) => existsSync(join(process.cwd(), candidate)));
  });
}

describe('architecture: split at the writer\'s line (issue 42)', () => {
  it('the store imports no use-case, and core/commands/ imports none', () => {
    const violations = srcFiles()
      .filter((file) => file.startsWith('src/store/') || file.startsWith('src/core/commands'))
      .flatMap((file) => importsOf(file, false).filter((target) => target.startsWith('src/core/usecases/')).map((target) => `${file} imports ${target}`));
    expect(violations).toEqual([]);
  });

  it('the writer thread loads the commands and the store, and no service: no use-case, no Ledger', () => {
    const loaded = new Set(['src/store/writer/writer-thread.ts']);
    for (const file of loaded) for (const target of importsOf(file, true)) loaded.add(target);
    expect([...loaded].filter((file) => file.startsWith('src/core/usecases/') || file === 'src/core/ledger.ts')).toEqual([]);
    expect(loaded).toContain('src/core/commands.ts');
    expect([...loaded].filter((file) => file.startsWith('src/core/commands/')).length).toBeGreaterThan(10);
  });

  it("the writer thread's bundle (dist/writer-thread.js and the chunks it loads) holds no service", () => {
    const dist = process.env.LEDGER_TEST_DIST ?? join(process.cwd(), 'dist');
    const loaded = new Set([join(dist, 'writer-thread.js')]);
    for (const file of loaded) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bfrom\s*"(\.\/[^"]+)"|\bimport\(\s*"(\.\/[^"]+)"\s*\)/g)) loaded.add(join(dist, (m[1] ?? m[2])!));
    }
    const services = [...loaded].flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\b(?:class (Ledger|\w+Service)\b|var (Ledger|\w+Service) = class\b)/g)].map((m) => `${relative(dist, file)}: ${m[1] ?? m[2]}`));
    expect(services).toEqual([]);
    expect(loaded.size).toBeGreaterThan(1);
  });

  it('the request side is one service class per use-case file, and core/ledger.ts is a list of them with no forwarded function', () => {
    const usecases = srcFiles().filter((file) => file.startsWith('src/core/usecases/'));
    const withoutService = usecases.filter((file) => !/^export class \w+Service\b/m.test(readFileSync(file, 'utf8')));
    expect(withoutService).toEqual([]);
    const ledger = readFileSync('src/core/ledger.ts', 'utf8');
    // A forwarded function is a field set to a function (`name = (…) => …`) or a method that only calls through.
    expect(ledger.match(/^\s+\w+\s*=\s*(?:async\s*)?\(|^\s+\w+\s*=\s*\w+\.\w+;/gm) ?? []).toEqual([]);
    const methods = [...ledger.matchAll(/^  (?:async |static )*(\w+)\(/gm)].map((m) => m[1]);
    expect(methods).toEqual(['open']);
    expect([...ledger.matchAll(/^  readonly (\w+): (\w+);/gm)].filter(([, , type]) => !type!.endsWith('Service')).map(([, name]) => name)).toEqual(['store', 'writer']);
  });

  it('no import circle in src/, counting type imports', () => {
    const graph = new Map(srcFiles().map((file) => [file, importsOf(file, false)]));
    const circles: string[] = [];
    // Depth-first, each file once: an import of a file still on the path closes a circle.
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      path.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open') circles.push([...path.slice(path.indexOf(target)), target].join(' -> '));
        else if (!state.has(target)) visit(target);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });
});
