// The fonts' @font-face rules that `npm run build` writes into dist/ (scripts/write-font-faces.mjs)
// are read at start only when they were made for the font packages installed: the same rules as
// built from the packages, and never a file made for other versions. No browser; a few seconds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fontFaceCss, prebuiltFontFaces } from '../src/cards/themes/fonts.js';

describe('font rules built into dist/', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cardwright-font-faces-'));
  after(() => fs.rmSync(folder, { recursive: true, force: true }));
  // The same reader, pointed at a file of this test's own.
  const inFolder = { ...prebuiltFontFaces, file: path.join(folder, 'font-faces.css') };

  it('are read back as exactly the rules built from the packages', () => {
    fs.writeFileSync(inFolder.file, inFolder.contents());
    const read = inFolder.read();
    assert.ok(read !== undefined, 'the file the build writes was not read');
    assert.equal(read, fontFaceCss());
    assert.ok((read.match(/@font-face/g) ?? []).length > 2000);
  });

  it('are ignored when made for other versions of the font packages, or absent', () => {
    const other = inFolder.contents().replace(/@fontsource\/noto-sans-sc@[\d.]+/, '@fontsource/noto-sans-sc@0.0.1');
    fs.writeFileSync(inFolder.file, other);
    assert.equal(inFolder.read(), undefined);
    fs.rmSync(inFolder.file);
    assert.equal(inFolder.read(), undefined);
  });

  it('are not read when the service runs from source', () => {
    assert.equal(prebuiltFontFaces.read(), undefined, `${prebuiltFontFaces.file} exists beside the source`);
  });
});
