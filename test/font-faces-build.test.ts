// The fonts' faces that `npm run build` writes into dist/ (scripts/write-font-faces.mjs) are read
// at start only when they were made for the font packages installed and the list of fonts: the
// same faces as built from the packages, and never a file made for other versions. No browser.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fontFaceCss, prebuiltFontFaces } from '../src/cards/themes/fonts.js';

describe('font faces built into dist/', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cardwright-font-faces-'));
  after(() => fs.rmSync(folder, { recursive: true, force: true }));
  // The same reader, pointed at a file of this test's own.
  const inFolder = { ...prebuiltFontFaces, file: path.join(folder, 'font-faces.json') };
  const built = inFolder.contents();

  it('are read back as the faces built from the packages', () => {
    fs.writeFileSync(inFolder.file, built);
    const read = inFolder.read();
    assert.ok(read !== undefined, 'the file the build writes was not read');
    assert.ok(read.rules.length > 2000);
    assert.equal(read.rules.join('\n'), JSON.parse(built.slice(built.indexOf('\n') + 1)).rules.join('\n'));
    // The whole stylesheet (the web page's) declares each face with the code points the index gives it.
    const rules = fontFaceCss().match(/@font-face\s*{[^}]*}/g) ?? [];
    assert.equal(rules.length, read.rules.length);
    const claimedBy = new Map<number, number>();
    for (const group of read.groups) for (let range = 0; range < group.lows.length; range++) claimedBy.set(group.faces[range]!, (claimedBy.get(group.faces[range]!) ?? 0) + group.highs[range]! - group.lows[range]! + 1);
    for (const [index, rule] of rules.entries()) {
      const ranges = /unicode-range:\s*([^;}]+)/.exec(rule)![1]!.split(',');
      const points = ranges.reduce((sum, range) => {
        const [low, high] = range.trim().replace(/^U\+/i, '').split('-').map((hex) => parseInt(hex, 16));
        return sum + (high === undefined ? 1 : high - low! + 1);
      }, 0);
      assert.equal(claimedBy.get(index), points, `face ${index} claims ${points} code points in its rule, ${claimedBy.get(index)} in the index`);
    }
  });

  it('never let two faces of one family, weight and style claim the same code point', () => {
    const { groups } = inFolder.read() ?? assert.fail('not read');
    assert.ok(groups.length > 50);
    for (const { lows, highs } of groups) {
      for (let range = 0; range < lows.length; range++) {
        assert.ok(lows[range]! <= highs[range]!);
        if (range > 0) assert.ok(highs[range - 1]! < lows[range]!, `U+${lows[range]!.toString(16)} is claimed twice in one group`);
      }
    }
  });

  it('are ignored when made for other versions of the font packages, or absent', () => {
    fs.writeFileSync(inFolder.file, built);
    const other = built.replace(/@fontsource\/noto-sans-sc@[\d.]+/, '@fontsource/noto-sans-sc@0.0.1');
    fs.writeFileSync(inFolder.file, other);
    assert.equal(inFolder.read(), undefined);
    fs.rmSync(inFolder.file);
    assert.equal(inFolder.read(), undefined);
  });
});
