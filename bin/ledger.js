#!/usr/bin/env node
// Launcher: the CLI lives in the build output (npm run build).
import module from 'node:module';

// On Node 22.1 and later, V8 keeps the compiled CLI in a cache between runs (a quicker start); Node 20 has no cache.
module.enableCompileCache?.();
await import('../dist/cli.js');
