// `npm start` runs this first (prestart): it builds dist/ only when a source of the build is newer
// than the last build, so a second start goes straight to `node dist/server.js` instead of spending
// seconds in the TypeScript compiler. themes/ and web/ are read at run time from the project root,
// not built, so they never make a build stale.
//
// The last build's time is the pagination bundle's: `npm run build` writes it last
// (scripts/bundle-pagination.mjs), after tsc has written everything else.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lastBuild = path.join(root, 'dist', 'cards', 'render', 'pagination.bundle.js');
const inputs = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/write-font-faces.mjs', 'scripts/bundle-pagination.mjs', 'scripts/write-regex-translations.mjs', 'scripts/write-code-digest.mjs'];

/** The newest modification time under `entry` (a file or a folder, walked), 0 when it is absent. */
function newestMtime(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted or renamed file changes its folder's time
  for (const child of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

const builtAt = newestMtime(lastBuild);
const changed = inputs.find((input) => newestMtime(path.join(root, input)) > builtAt);
if (builtAt > 0 && changed === undefined) {
  console.log('dist/ is up to date with its sources; not rebuilding.');
} else {
  console.log(builtAt === 0 ? 'dist/ has not been built yet; building …' : `${changed} changed since the last build; building …`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(build.status ?? 1);
}
