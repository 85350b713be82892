// `npm start` runs scripts/build-if-stale.mjs first: it must build when dist/ is missing or older
// than a source, and start at once otherwise. Checked on a small project laid out like this one,
// whose build only leaves a mark, so the test runs in a second.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

describe('npm start builds only when the sources are newer than dist/', () => {
  let root: string;
  const bundle = () => path.join(root, 'dist', 'cards', 'render', 'pagination.bundle.js');
  const mark = () => path.join(root, 'built');

  /** Runs the script in the small project; answers its output and whether it built. */
  function start(): { output: string; built: boolean } {
    fs.rmSync(mark(), { force: true });
    const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-if-stale.mjs')], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return { output: run.stdout, built: fs.existsSync(mark()) };
  }

  /** Sets a file's modification time `secondsAgo` in the past. */
  function age(file: string, secondsAgo: number): void {
    const time = new Date(Date.now() - secondsAgo * 1000);
    fs.utimesSync(file, time, time);
  }

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cardwright-build-'));
    fs.mkdirSync(path.join(root, 'scripts'));
    fs.copyFileSync(new URL('../scripts/build-if-stale.mjs', import.meta.url), path.join(root, 'scripts', 'build-if-stale.mjs'));
    fs.mkdirSync(path.join(root, 'src', 'cards'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'cards', 'index.ts'), 'export {};\n');
    // The build writes the bundle last, as the real one does, and leaves a mark.
    const build = "const fs=require('fs');fs.mkdirSync('dist/cards/render',{recursive:true});fs.writeFileSync('dist/cards/render/pagination.bundle.js','');fs.writeFileSync('built','')";
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'small', private: true, scripts: { build: `node -e "${build}"` } }));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('builds when dist/ was never built', () => {
    const { output, built } = start();
    assert.ok(built, output);
    assert.match(output, /has not been built yet/);
  });

  it('starts without building when dist/ is newer than every source', () => {
    for (const file of [path.join(root, 'package.json'), path.join(root, 'src', 'cards', 'index.ts'), path.join(root, 'src', 'cards'), path.join(root, 'src')]) age(file, 60);
    const { output, built } = start();
    assert.equal(built, false, output);
    assert.match(output, /up to date/);
  });

  it('builds again when a source file changed after the build', () => {
    fs.writeFileSync(path.join(root, 'src', 'cards', 'index.ts'), 'export const changed = true;\n');
    const { output, built } = start();
    assert.ok(built, output);
    assert.match(output, /src changed since the last build/);
    assert.ok(fs.statSync(bundle()).mtimeMs >= fs.statSync(path.join(root, 'src', 'cards', 'index.ts')).mtimeMs);
  });
});
