// The script the render page runs to paginate: the modules of ./paginate/ bundled by esbuild into
// one self-contained script (the page cannot load modules: it has no network and JavaScript off
// for content; only the service's own page.evaluate runs code in it).
//
// How the bundle is made, in each way the service runs:
// - Compiled (`npm run build`, which `npm start` and `npm install` run first): the build bundles it
//   after tsc, next to this module in dist/ (scripts/bundle-pagination.mjs), and it is read from
//   there. The compiled service needs no bundler at run time.
// - From source with tsx (tests, `npm test`, scripts): there is no bundle next to the .ts module,
//   so it is bundled here on first use with esbuild's JS API (about a tenth of a second) and kept
//   for the life of the process. Tests therefore always run the sources as they are, on a clean
//   clone without a build, and never a stale dist/.
// The bundle is never committed: dist/ is ignored by git. Tests that describe the cards built
// bundle an entry of their own around the same modules (test/helpers/pagination-report.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../../paths.js';

/** File name of the bundle in dist/cards/render/, written by the build. */
export const bundleFileName = 'pagination.bundle.js';

/** The name under which the bundle exposes the entry's exports (see RenderPage.callScript). */
export const bundleGlobalName = 'cardwrightPagination';

const entryPoint = path.join(projectRoot, 'src', 'cards', 'render', 'paginate', 'index.ts');

/** Bundles ./paginate/ with esbuild (a devDependency, loaded only here). */
export function bundlePaginationScript(): Promise<string> {
  return bundlePageScript(entryPoint);
}

/**
 * Bundles a module meant to run in a render page, and what it imports, into one script that
 * exposes its exports as `bundleGlobalName`.
 */
export async function bundlePageScript(entry: string): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: bundleGlobalName,
    platform: 'browser',
    target: 'es2022',
    // Names and line breaks stay readable in the page's stack traces. No __name wrappers (keepNames off).
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

let script: Promise<string> | undefined;

/** The bundled page script: the build's file when there is one, else bundled now, once. */
export function paginationScript(): Promise<string> {
  if (!script) {
    const prebuilt = path.join(path.dirname(fileURLToPath(import.meta.url)), bundleFileName);
    const bundled = fs.readFile(prebuilt, 'utf8').catch(() => bundlePaginationScript());
    // A failed bundle is not cached: the next request tries again.
    bundled.catch(() => {
      if (script === bundled) script = undefined;
    });
    script = bundled;
  }
  return script;
}
