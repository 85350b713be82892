// Runs several test files in this one process, each as a top-level suite named after its file, so
// they share what test/helpers/service.ts keeps warm (one service with the default settings)
// instead of each starting its own. scripts/run-tests.mjs starts it with the files of
// a group of `sharedServiceGroups` (test/lanes.mjs); the files need no change to run here or alone.
//
// Files are named as in the repository (test/x.test.ts) and imported from beside this module as
// .js: the compiled file when this runs compiled (scripts/compile-tests.mjs), the source under tsx.
import { after, describe } from 'node:test';
import { closeSharedServices, shareDefaultService } from './service.js';

shareDefaultService();
for (const file of process.argv.slice(2)) {
  describe(file, async () => {
    await import(new URL(`../../${file.replace(/\.ts$/, '.js')}`, import.meta.url).href);
  });
}
after(closeSharedServices);
