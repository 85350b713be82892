#!/usr/bin/env node
// The `cardwright` command. It runs the compiled CLI in dist/, which `npm install` builds (the
// "prepare" script) and `npm run build` rebuilds.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('cardwright: dist/ is missing; run `npm run build` in the cardwright folder first.');
  process.exit(1);
}
await import(cli.href);
