// fontScale: the theme's type, spacing and decorations grow with the card while the image keeps
// exactly the size asked for (README.md, "Sizes for each platform").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodePng, differingFraction, download } from './helpers/images.js';
import { renderWithGeometry } from './helpers/card-geometry.js';
import { startService, type RunningService } from './helpers/service.js';

const markdown = '# 知识卡片 Knowledge card\n\nType scales with the card. 字号随卡片放大。\n\n| Plan | Price |\n|---|---|\n| Pro | $12 |\n\n> A quote.';

describe('fontScale', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('makes the platform sizes of the README exactly, in every split mode and format', async () => {
    const sizes = [
      { width: 1080, height: 1350, fontScale: 2.5 },
      { width: 1242, height: 1660, fontScale: 2.8 },
      { width: 900, height: 383, fontScale: 2 },
      { width: 333, height: 777, fontScale: 0.7 },
    ];
    for (const size of sizes) {
      for (const [splitMode, format] of [['noSplit', 'png'], ['autoSplit', 'jpeg'], ['hrSplit', 'webp']] as const) {
        const body = { markdown: `${markdown}\n\n---\n\n${markdown}`, ...size, splitMode, format, scale: 1, overHiddenMode: splitMode === 'noSplit' };
        const { status, json } = await service.generate(body);
        assert.equal(status, 200, JSON.stringify(json));
        for (const image of json.images) {
          assert.deepEqual([image.width, image.height], [size.width, size.height], `${JSON.stringify(size)} ${splitMode}`);
        }
      }
    }
  });

  it('draws a 880-px card at fontScale 2 exactly as a 440-px card at scale 2', async () => {
    const base = { markdown, theme: 'coil-notebook', overHiddenMode: true };
    const small = await service.generate({ ...base, width: 440, height: 586, scale: 2 });
    const large = await service.generate({ ...base, width: 880, height: 1172, scale: 1, fontScale: 2 });
    assert.equal(small.status, 200);
    assert.equal(large.status, 200);
    const a = await decodePng((await download(small.json.images[0].url)).bytes);
    const b = await decodePng((await download(large.json.images[0].url)).bytes);
    assert.deepEqual([b.width, b.height], [880, 1172]);
    assert.ok(differingFraction(a, b) < 0.001, `${(differingFraction(a, b) * 100).toFixed(2)}% of pixels differ`);
  });

  it('multiplies the size of the type on the image', async () => {
    const heightOfTitle = async (fontScale: number) => {
      const { cards } = await renderWithGeometry(service, { markdown, width: 1080, height: 1440, fontScale, scale: 1 }, { capture: false });
      const title = cards[0]!.lines.find((line) => line.heading)!;
      return (title.bottom - title.top) * fontScale; // CSS px × fontScale = image px
    };
    const [one, two] = [await heightOfTitle(1), await heightOfTitle(2.5)];
    assert.ok(Math.abs(two / one - 2.5) < 0.05, `the title is ${(two / one).toFixed(2)}× as tall`);
  });

  it('refuses values outside 0.5–4 naming the field and the bounds', async () => {
    // A number sent as text is read as that number (docs/api.md), so it is held to the same bounds.
    for (const fontScale of [0.4, 4.5, '4.5']) {
      const { status, json } = await service.generate({ fontScale });
      assert.equal(status, 400, String(fontScale));
      assert.match(json.message, /fontScale/);
      assert.match(json.message, /0\.5–4/);
    }
    const { status, json } = await service.generate({ fontScale: 'large' });
    assert.equal(status, 400);
    assert.match(json.message, /fontScale/);
  });
});
