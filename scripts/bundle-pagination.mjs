// Build step after tsc (`npm run build`): bundles the page-side pagination (src/cards/render/paginate/)
// into dist/cards/render/, next to the compiled pagination-script.js that reads it, so the compiled
// service runs without a bundler. Only the service's flavour is written: the reporting flavour is
// for tests, which run from source and bundle it themselves (see src/cards/render/pagination-script.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/cards/render/pagination-script.js', import.meta.url);
const { bundlePaginationScript, bundleFileNames } = await import(compiled.href);
const target = path.join(path.dirname(fileURLToPath(compiled)), bundleFileNames.service);
await fs.writeFile(target, await bundlePaginationScript('service'));
