// Where the project's own files live, whether this code runs from src/ (tsx), from dist/
// (compiled) or from a bundle of dist/ in a folder below it (the Markdown worker's,
// scripts/bundle-markdown-worker.mjs): the root is the nearest folder above this module that holds
// the project's package.json.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const projectRoot = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Built-in theme CSS files, one file per theme (see themes/README.md). */
export const builtinThemesDir = path.join(projectRoot, 'themes');

/** npm packages are resolved from the project root, never from the host's font or browser folders. */
export const nodeModulesDir = path.join(projectRoot, 'node_modules');
