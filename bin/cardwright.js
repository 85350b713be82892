#!/usr/bin/env node
// The `cardwright` command. It runs the compiled CLI in dist/, which `npm install` builds (the
// "prepare" script) and `npm run build` rebuilds.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('cardwright: dist/ is missing; run `npm run build` in the cardwright folder first.');
  process.exit(1);
}
// First, so that Node 22.1+ keeps what it compiles of the CLI for the next command.
const { enableCompileCache } = await import(new URL('../dist/compile-cache.js', import.meta.url).href);
enableCompileCache();
await import(cli.href);
