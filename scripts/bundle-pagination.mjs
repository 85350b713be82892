// Build step after tsc (`npm run build`): bundles the page-side pagination (src/cards/render/paginate/)
// into dist/cards/render/, next to the compiled pagination-script.js that reads it, so the compiled
// service runs without a bundler (see src/cards/render/pagination-script.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/cards/render/pagination-script.js', import.meta.url);
const { bundlePaginationScript, bundleFileName } = await import(compiled.href);
const target = path.join(path.dirname(fileURLToPath(compiled)), bundleFileName);
await fs.writeFile(target, await bundlePaginationScript());
