// The digest of the code that draws cards, which versions the render cache
// (src/cards/code-fingerprint.ts): any change to a module, a data file or the installed packages
// changes it; a rebuild of the same files does not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { codeFingerprint } from '../src/cards/code-fingerprint.js';
import { rendererVersion } from '../src/cards/render-cache.js';
import { temporaryDir } from './helpers/service.js';

function codeTree(): { dir: string; lockFile: string } {
  const root = temporaryDir('cardwright-code-');
  const dir = path.join(root, 'cards');
  fs.mkdirSync(path.join(dir, 'render'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.js'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(dir, 'render', 'paginate.js'), 'export const minLines = 2;\n');
  fs.writeFileSync(path.join(dir, 'render', 'paginate.js.map'), '{"sources":["/build/here/paginate.ts"]}');
  const lockFile = path.join(root, 'lock.json');
  fs.writeFileSync(lockFile, '{"packages":{"node_modules/katex":{"version":"0.16.0"}}}');
  return { dir, lockFile };
}

describe('the digest of the code that draws cards', () => {
  it('changes with a module, a new file or the installed packages, and with it the render cache version', () => {
    const tree = codeTree();
    const before = codeFingerprint({ ...tree, fresh: true });
    assert.equal(codeFingerprint({ ...tree, fresh: true }), before, 'the same files give the same digest');
    const version = rendererVersion('1.0.0', '<html>', before);

    fs.writeFileSync(path.join(tree.dir, 'render', 'paginate.js'), 'export const minLines = 3;\n');
    const edited = codeFingerprint({ ...tree, fresh: true });
    assert.notEqual(edited, before, 'a changed pagination rule');
    assert.notEqual(rendererVersion('1.0.0', '<html>', edited), version, 'the cache version follows the code');

    fs.writeFileSync(path.join(tree.dir, 'render', 'extra.json'), '{}');
    const added = codeFingerprint({ ...tree, fresh: true });
    assert.notEqual(added, edited, 'a new data file');

    fs.writeFileSync(tree.lockFile, '{"packages":{"node_modules/katex":{"version":"0.16.9"}}}');
    assert.notEqual(codeFingerprint({ ...tree, fresh: true }), added, 'another version of a dependency');
  });

  it('leaves out source maps, which name where the build ran', () => {
    const tree = codeTree();
    const before = codeFingerprint({ ...tree, fresh: true });
    fs.writeFileSync(path.join(tree.dir, 'render', 'paginate.js.map'), '{"sources":["/elsewhere/paginate.ts"]}');
    assert.equal(codeFingerprint({ ...tree, fresh: true }), before);
  });

  it('is read from the file the build wrote, which is not part of it', () => {
    const tree = codeTree();
    const digest = codeFingerprint({ ...tree, fresh: true });
    fs.writeFileSync(path.join(tree.dir, 'code-digest.txt'), `${digest}\n`);
    assert.equal(codeFingerprint({ ...tree, fresh: true }), digest, 'the written digest does not change the digest');
    fs.writeFileSync(path.join(tree.dir, 'code-digest.txt'), 'written-by-build\n');
    assert.equal(codeFingerprint(tree), 'written-by-build');
  });
});
