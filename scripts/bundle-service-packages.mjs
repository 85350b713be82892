// Build step after tsc (`npm run build`): the packages the service's own process loads are bundled
// into shared chunks in dist/packages/, and every compiled module of the service imports them from
// there. The service's own modules stay where tsc wrote them, each in its own file: they find
// their neighbours, the project's files and the scripts they start by their own address
// (import.meta.url), so only the import lines that name a package change.
//
// Why: at start the main thread loaded some 1,700 files of about 150 packages (Fastify and its
// plugins, AJV, the S3 client, YAML, prom-client, …) one by one, and Node's module loader
// (resolving, reading and linking each file) cost more than running them: importing the service
// took about 1.2 s of the main thread before Chromium could be launched, 0.8 s bundled
// (docs/performance.md#start-up). The Markdown worker is bundled on its own (bundle-markdown-worker.mjs).
//
// Left as they are, and loaded from node_modules as before:
// - packages that read files next to their own code or start threads and processes from them
//   (pino's transports, thread-stream, ioredis, BullMQ, msgpackr, the API reference's Swagger UI
//   and the OpenAPI plugin that reads its own package.json);
// - native addons (sharp), and the packages the service finds or loads itself by path
//   (the Chromium package, which unpacks its binary from files beside it; piscina, which starts
//   its workers from its own files);
// - what only a build or a run from source loads (esbuild, tsx).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { requireBanner } from './bundle-markdown-worker.mjs';

const leftInNodeModules = [
  'pino',
  'thread-stream',
  'ioredis',
  'bullmq',
  'msgpackr',
  'msgpackr-extract',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'sharp',
  '@sparticuz/chromium',
  'piscina',
  'esbuild',
  'tsx',
];

/** What the service runs, besides what these import: its entry points and the processes it starts from its own files. */
const entryPoints = ['server.js', 'cli.js', 'cards/images/svg-drawing-host-process.js', 'cards/images/svg-raster-process.js'];


/**
 * Rewrites the compiled modules under `compiledDir` (dist) that the entry points reach, in place,
 * with the packages they import in `compiledDir/packages/`.
 */
export async function bundleServicePackages(compiledDir) {
  const dist = path.resolve(compiledDir);
  // Already done since tsc last wrote the modules (this step run again on its own).
  if (fs.readFileSync(path.join(dist, entryPoints[0]), 'utf8').startsWith(requireBanner)) return;
  const modules = new Set(entryPoints.map((file) => path.join(dist, file)));
  // The service's own modules are found by following their relative imports from the entry points;
  // each is kept as a module of its own (external), and itself an entry point of the build.
  let found = true;
  const ownModulesStayApart = {
    name: 'own-modules-stay-apart',
    setup(builder) {
      builder.onResolve({ filter: /^\.\.?\// }, ({ path: specifier, importer }) => {
        if (!importer.startsWith(dist + path.sep)) return undefined; // a package's own files
        const target = path.resolve(path.dirname(importer), specifier);
        // The Markdown worker is bundled whole on its own, and its chunks with it.
        if (!target.endsWith('.js') || target.includes(`${path.sep}worker-chunks${path.sep}`) || target.endsWith('markdown-worker.js')) return undefined;
        if (!modules.has(target)) {
          modules.add(target);
          found = true;
        }
        return { path: specifier, external: true };
      });
    },
  };
  const options = {
    outbase: dist,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: leftInNodeModules,
    plugins: [ownModulesStayApart],
    logLevel: 'warning',
  };
  // Until no new module is found: a module found is read in the next round.
  while (found) {
    found = false;
    await build({ ...options, entryPoints: [...modules], outdir: dist, write: false, logLevel: 'silent' });
  }
  // The modules' source maps are carried over from tsc's (it wrote them beside each module).
  // tsc has just written every module again, so the chunks of an earlier build are no longer imported.
  fs.rmSync(path.join(dist, 'packages'), { recursive: true, force: true });
  await build({ ...options, entryPoints: [...modules], outdir: dist, allowOverwrite: true, chunkNames: 'packages/[name]-[hash]', banner: { js: requireBanner }, sourcemap: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundleServicePackages(fileURLToPath(new URL('../dist', import.meta.url)));
}
