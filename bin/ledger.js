#!/usr/bin/env node
// Launcher: the CLI lives in the build output (npm run build).
import '../dist/cli.js';
