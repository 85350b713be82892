// overHiddenMode on content that does not fit: the card keeps its exact size, ends at its last whole
// line (no line of text is cut through) and shows that the text goes on by fading its last lines
// out (README.md, request fields; themes/README.md for the class and custom properties).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderWithGeometry } from './helpers/card-geometry.js';
import { pixel, type DecodedPng, decodePng } from './helpers/images.js';
import { contrastRatio } from './helpers/contrast.js';
import { startService, type RunningService } from './helpers/service.js';

const paragraph =
  'Markdown is a lightweight markup language for creating formatted text using a plain-text editor. ' +
  '它使用易读易写的纯文本格式编写文档，可与 HTML 混编。';
const long = `# A long note\n\n${Array.from({ length: 12 }, () => paragraph).join('\n\n')}`;

/** The strongest contrast of any pixel against the paper in a band of rows, in CSS px. */
function inkContrast(png: DecodedPng, left: number, right: number, top: number, bottom: number): number {
  const paper = pixel(png, Math.round(left), Math.round(top));
  let best = 1;
  for (let y = Math.round(top); y < Math.round(bottom); y++) {
    for (let x = Math.round(left); x < Math.round(right); x++) best = Math.max(best, contrastRatio(paper, pixel(png, x, y)));
  }
  return best;
}

describe('overHiddenMode', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('does not cut a card short for the lines a closed <details> hides', async () => {
    // Asked for their boxes, the page lays the hidden lines out as if they were drawn: they crossed
    // the card's edge, and the card was cut above its own last line.
    const items = Array.from({ length: 40 }, (_, i) => `- Section ${i}`).join('\n');
    const markdown = `Before the table of contents.\n\n<details>\n<summary>Expand contents</summary>\n\n${items}\n\n</details>\n\nAfter it, the last line.`;
    for (const theme of ['minimal', 'darktech']) {
      const { cards } = await renderWithGeometry(service, { markdown, theme, overHiddenMode: true, scale: 1 }, { capture: false });
      assert.equal(cards[0]!.truncatedAt, undefined, `${theme}: cut at ${cards[0]!.truncatedAt}`);
    }
  });

  for (const theme of ['plain-notes', 'minimal', 'cyberpunk', 'notebook', 'coil-notebook', 'japanese-magazine']) {
    for (const height of [360, 401, 437]) {
      it(`ends a ${theme} card ${height} px tall at its last whole line`, async () => {
        const { images, cards } = await renderWithGeometry(service, { markdown: long, theme, height, overHiddenMode: true, scale: 1 });
        assert.equal(images.length, 1);
        assert.deepEqual([images[0]!.width, images[0]!.height], [440, height]);
        const card = cards[0]!;
        const cut = card.truncatedAt;
        assert.ok(cut !== undefined, 'the card is marked as truncated');
        assert.ok(cut <= card.content.bottom + 0.5, 'the cut is inside the content box');
        const crossing = card.lines.filter((line) => line.top < cut - 0.5 && line.bottom > cut + 0.5);
        assert.deepEqual(crossing.map((line) => line.text), [], 'no line is cut through');
        const shown = card.lines.filter((line) => line.bottom <= cut + 0.5);
        assert.ok(shown.length >= 3, 'the lines above the cut are shown');
        // Below the cut nothing of the text is drawn; the last line shown is faded against the first.
        if (theme === 'plain-notes' || theme === 'minimal') {
          const png = await decodePng(images[0]!.data);
          const { left, right } = card.content;
          assert.ok(inkContrast(png, left, right, cut + 1, card.content.bottom) < 1.2, 'nothing drawn below the cut');
          const first = shown[0]!;
          const last = shown.at(-1)!;
          const firstContrast = inkContrast(png, left, right, first.top, first.bottom);
          const lastContrast = inkContrast(png, left, right, last.top, last.bottom);
          assert.ok(lastContrast < firstContrast * 0.7, `the last line fades (${lastContrast.toFixed(2)} vs ${firstContrast.toFixed(2)})`);
        }
      });
    }
  }

  it('leaves a card whose content fits as it is', async () => {
    const { cards } = await renderWithGeometry(service, { markdown: '# Short\n\nFits easily.', overHiddenMode: true, scale: 1 }, { capture: false });
    assert.equal(cards[0]!.truncatedAt, undefined);
  });

  it('ends every hrSplit section that does not fit at a whole line', async () => {
    const { images, cards } = await renderWithGeometry(service, { markdown: `${long}\n\n---\n\n${long}`, splitMode: 'hrSplit', overHiddenMode: true, scale: 1 });
    assert.equal(images.length, 2);
    for (const card of cards) {
      const cut = card.truncatedAt!;
      assert.ok(cut !== undefined);
      assert.deepEqual(card.lines.filter((line) => line.top < cut - 0.5 && line.bottom > cut + 0.5).map((line) => line.text), []);
    }
  });
});
