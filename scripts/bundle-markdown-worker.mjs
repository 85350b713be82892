// Build step after tsc (`npm run build`; scripts/compile-tests.mjs does the same for .test-build):
// bundles the Markdown worker (src/cards/markdown/markdown-worker.ts) and everything it imports into
// one module, written over the compiled markdown-worker.js, with what it loads on first use (Shiki's
// grammars and themes, KaTeX, MDX) split into chunks beside it, in worker-chunks/.
//
// Why: each worker thread otherwise loads more than 550 ES modules one by one (the unified,
// micromark and Shiki packages are many small files), and Node's module loader, not the code, was
// most of a worker's start: a service with two workers used about 1 s less CPU until ready bundled
// (docs/performance.md#start-up). The main thread is left as tsc wrote it: the worker is a separate
// isolate, which shares no module with the main thread.
//
// The chunks sit one folder below the worker, so the modules in them find the project's files by
// looking upwards (src/paths.ts), not at a fixed depth.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Bundled CommonJS packages that require Node's own modules need a require in an ES module
 * (bundle-service-packages.mjs writes it too).
 */
export const requireBanner = "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);";

/**
 * Bundles `<compiledDir>/cards/markdown/markdown-worker.js` in place (compiledDir: dist, or
 * .test-build/src with `sourcemap: 'inline'` so that tests name the TypeScript lines).
 */
export async function bundleMarkdownWorker(compiledDir, { sourcemap = false } = {}) {
  const workerDir = path.join(compiledDir, 'cards', 'markdown');
  const worker = path.join(workerDir, 'markdown-worker.js');
  // Already bundled (this step run again without the compiler): its chunks are still needed.
  if (fs.readFileSync(worker, 'utf8').startsWith(requireBanner)) return;
  fs.rmSync(path.join(workerDir, 'worker-chunks'), { recursive: true, force: true });
  await build({
    entryPoints: [worker],
    outdir: workerDir,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    chunkNames: 'worker-chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: requireBanner },
    sourcemap,
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundleMarkdownWorker(fileURLToPath(new URL('../dist', import.meta.url)));
}
