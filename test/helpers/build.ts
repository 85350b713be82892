// dist/ for the tests that run the built service or command (the CLI, the cluster's replicas):
// built only when a source is newer than the last build, by the same script as `npm start`.
// scripts/run-tests.mjs builds once before any file starts, so under `npm test` this only checks.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

let checked = false;

export function buildIfStale(): void {
  if (checked) return;
  execFileSync(process.execPath, [path.join(projectRoot, 'scripts', 'build-if-stale.mjs')], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  checked = true;
}
