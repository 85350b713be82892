// Where the project's own files live, whether this code runs from src/ (tsx) or dist/ (compiled).
// Both directories sit one level below the project root, so one rule serves both.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Built-in theme CSS files, one file per theme (see themes/README.md). */
export const builtinThemesDir = path.join(projectRoot, 'themes');

/** npm packages are resolved from the project root, never from the host's font or browser folders. */
export const nodeModulesDir = path.join(projectRoot, 'node_modules');
