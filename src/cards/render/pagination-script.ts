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
// The bundle is never committed: dist/ is ignored by git.
//
// Two flavours: `service`, what requests run; `report`, which adds a description of every card
// for tests (paginate/report.ts). The flag is an esbuild `define`, so the service's flavour holds
// none of the reporting code.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../../paths.js';

export type ScriptFlavour = 'service' | 'report';

/** File names of the bundles in dist/cards/render/, written by the build. */
export const bundleFileNames: Record<ScriptFlavour, string> = {
  service: 'pagination.bundle.js',
  report: 'pagination-report.bundle.js',
};

/** The name under which the bundle exposes the entry's exports (see paginationCall in paginate.ts). */
export const bundleGlobalName = 'cardwrightPagination';

const entryPoint = path.join(projectRoot, 'src', 'cards', 'render', 'paginate', 'index.ts');

/** Bundles ./paginate/ with esbuild (a devDependency, loaded only here). */
export async function bundlePaginationScript(flavour: ScriptFlavour): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entryPoint],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: bundleGlobalName,
    platform: 'browser',
    target: 'es2022',
    define: { PAGINATION_REPORT: String(flavour === 'report') },
    // Syntax minification folds `if (false)` away so the reporting code is dropped, while names and
    // line breaks stay readable in the page's stack traces. No __name wrappers (keepNames off).
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

const scripts = new Map<ScriptFlavour, Promise<string>>();

/** The bundled page script of `flavour`: the build's file when there is one, else bundled now, once. */
export function paginationScript(flavour: ScriptFlavour): Promise<string> {
  let script = scripts.get(flavour);
  if (!script) {
    const prebuilt = path.join(path.dirname(fileURLToPath(import.meta.url)), bundleFileNames[flavour]);
    script = fs.readFile(prebuilt, 'utf8').catch(() => bundlePaginationScript(flavour));
    // A failed bundle is not cached: the next request tries again.
    script.catch(() => scripts.delete(flavour));
    scripts.set(flavour, script);
  }
  return script;
}
