// Compiles the TypeScript of src/ and test/ to JavaScript once per test run, into .test-build/, so
// the test processes run plain JavaScript instead of each loading it through tsx.
//
// Why: under tsx every module a process imports (the service, its Markdown worker threads, each SVG
// drawing process) passes through loader hooks on another thread and is transformed there, about
// 4–5 s of CPU per test process that starts a service, most of it repeated in every process. This
// does the same esbuild transform once for the whole run.
//
// .test-build/ mirrors the repository so that paths keep their meaning: src/ and test/ hold the
// compiled modules beside links to their sources and to every other file (fixtures, themes'
// CSS), and every other top-level entry (node_modules, dist, docs, themes, …) is a link. The
// modules find the project root one level above src/ or test/, as they do from the sources.
// Files the build writes beside its modules and nowhere in src/ (the bundled pagination script)
// are linked from dist/, which scripts/run-tests.mjs builds first.
//
// `node scripts/compile-tests.mjs` prints the folder's path; run-tests.mjs calls compileTests().
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundleMarkdownWorker } from './bundle-markdown-worker.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const compiledRoot = path.join(root, '.test-build');
const compiledDirs = ['src', 'test'];

export async function compileTests() {
  fs.rmSync(compiledRoot, { recursive: true, force: true });
  fs.mkdirSync(compiledRoot);
  for (const entry of fs.readdirSync(root)) {
    if (entry === '.git' || entry === path.basename(compiledRoot) || compiledDirs.includes(entry)) continue;
    fs.symlinkSync(path.join(root, entry), path.join(compiledRoot, entry));
  }
  const sources = [];
  for (const dir of compiledDirs) mirror(path.join(root, dir), path.join(compiledRoot, dir), sources);
  await build({
    entryPoints: sources,
    outbase: root,
    outdir: compiledRoot,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Inline maps: a file run with --enable-source-maps, or in a debugger, names the TypeScript lines.
    sourcemap: 'inline',
    logLevel: 'error',
  });
  linkBuildOutputs(path.join(root, 'dist'), path.join(compiledRoot, 'src'));
  // The test services' Markdown workers load one bundle, as the built service's do.
  await bundleMarkdownWorker(path.join(compiledRoot, 'src'), { sourcemap: 'inline' });
  return compiledRoot;
}

/** Links every file of `from` into `to`, directory by directory, and lists its .ts files to compile. */
function mirror(from, to, sources) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) {
      mirror(source, path.join(to, entry.name), sources);
      continue;
    }
    fs.symlinkSync(source, path.join(to, entry.name));
    if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) sources.push(source);
  }
}

/** Links the files dist/ holds beside its modules that have no source of their name in src/. */
function linkBuildOutputs(dist, compiledSrc) {
  if (!fs.existsSync(dist)) return;
  for (const entry of fs.readdirSync(dist, { withFileTypes: true })) {
    const built = path.join(dist, entry.name);
    const target = path.join(compiledSrc, entry.name);
    if (entry.isDirectory()) {
      if (fs.existsSync(target)) linkBuildOutputs(built, target);
      continue;
    }
    if (/\.(js|js\.map|d\.ts)$/.test(entry.name) && !entry.name.endsWith('.bundle.js')) continue;
    if (!fs.existsSync(target)) fs.symlinkSync(built, target);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(await compileTests());
