import { defineConfig } from 'tsup';

/**
 * Pure-JavaScript dependencies bundled into each entry: one file to read and compile at start instead of several
 * hundred modules to resolve and load one by one (kysely alone is some 400). `ledger --version` went from 0.61 to
 * 0.31 s here, and the CLI suites, which start the binary hundreds of times, from 95 to 43 s; with the chunks below,
 * 0.19 s (a `tenants create` on a new file 0.5 to 0.32 s). Native modules
 * (better-sqlite3), the chain SDKs (loaded only when a watcher or an address check needs them) and pg-native (which
 * pg only tries) stay external and come from node_modules.
 */
const BUNDLED = ['kysely', 'h3', 'srvx', 'valibot', '@valibot/to-json-schema', 'decimal.js', 'commander', 'cli-table3', 'uuid', 'ipaddr.js', '@inquirer/prompts', 'pg', 'pg-cursor'];

// ESM bundles for the CLI and the store's threads; and the console's script and stylesheet, for the browser.
export default defineConfig([{
  // The writer, checkpoint and statement-parse threads are entries of their own: the server starts them as workers from dist/.
  entry: {
    cli: 'src/cli/main.ts',
    'writer-thread': 'src/store/writer/writer-thread.ts',
    'checkpoint-thread': 'src/store/sqlite/checkpoint-thread.ts',
    'statement-parse-thread': 'src/server/statementParseThread.ts',
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  // dist/console is the console's build's own (below); the two builds run side by side.
  clean: ['!console/**'],
  sourcemap: true,
  // Chunks: a command loads the server, the workers and the chain watchers only when it runs them (`ledger serve`,
  // `watch`, `webhooks send`); the others start without them.
  splitting: true,
  noExternal: BUNDLED,
  external: ['pg-native'],
  // The CommonJS among them (commander, cli-table3, pg, ipaddr.js) call require(), which an ES module lacks.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
},
{
  // The console (src/console, served at /console by src/server/console.ts): one script and one stylesheet with
  // everything they use inside, minified; nothing is loaded from anywhere else.
  entry: { app: 'src/console/main.tsx' },
  format: ['esm'],
  platform: 'browser',
  target: 'es2022',
  outDir: 'dist/console',
  clean: true,
  minify: true,
  splitting: false,
  sourcemap: false,
  noExternal: [/.*/],
  tsconfig: 'src/console/tsconfig.json',
  outExtension: () => ({ js: '.js' }),
  esbuildOptions(options) {
    options.jsx = 'automatic';
    options.jsxImportSource = 'preact';
    options.legalComments = 'none';
  },
}]);
