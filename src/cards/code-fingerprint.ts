// A digest of the code that draws the cards, for the render cache's version (render-cache.ts). A new
// build may change how the same request looks (a pagination rule, a Markdown step, the card
// markup) while the package version stays the same, as when a self-hosted service is updated from
// its repository: the cache must not answer with the old build's images then. The digest covers
// the files of this directory (the modules that draw cards and the data the build writes beside
// them, whether they run from src/ or dist/) and the lock of the installed packages, which names
// each dependency's version (Shiki's grammars, KaTeX, Mermaid, the fonts). `npm run build` writes
// it into dist/ (scripts/write-code-digest.mjs), so a built service reads it instead of hashing.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeModulesDir } from '../paths.js';

const cardsDir = path.dirname(fileURLToPath(import.meta.url));

/** Where the build writes the digest; it is left out of the digest itself. */
export const codeDigestFile = path.join(cardsDir, 'code-digest.txt');

export interface FingerprintOptions {
  /** The directory of the code (this module's). */
  dir?: string;
  lockFile?: string;
  /** Hash the files even when the build wrote the digest (the build step itself). */
  fresh?: boolean;
}

export function codeFingerprint({ dir = cardsDir, lockFile = path.join(nodeModulesDir, '.package-lock.json'), fresh = false }: FingerprintOptions = {}): string {
  const written = path.join(dir, path.basename(codeDigestFile));
  if (!fresh && fs.existsSync(written)) return fs.readFileSync(written, 'utf8').trim();
  const hash = createHash('sha256');
  for (const file of filesUnder(dir)) {
    if (file === written) continue;
    hash.update(path.relative(dir, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  // A lock npm did not write (another package manager) leaves the dependencies to the package version.
  if (fs.existsSync(lockFile)) hash.update(fs.readFileSync(lockFile));
  return hash.digest('hex').slice(0, 16);
}

/** Every file under `dir`, in a fixed order; source maps left out (they name where the build ran). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && !entry.name.endsWith('.map'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
