// Every theme at the smallest and the largest card the API accepts (200×200 and 2000×4000): its
// header, footer and ornaments scale, simplify or hide instead of colliding with the title or the
// text, and no ring, tape or stamp is cut by the card's edge, whether the card grows with its
// content (noSplit) or is exactly its height (autoSplit). See README.md, "Sizes for each platform".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { layoutProblems, renderWithGeometry } from './helpers/card-geometry.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { signatureHtml } from '../src/cards/render/creator-cards.js';
import { checkRequest } from '../src/cards/request/check.js';
import { layoutFontScale } from '../src/cards/request/resolve.js';
import { projectRoot } from '../src/paths.js';
import { startService, type RunningService } from './helpers/service.js';
import { corpusDocuments } from './helpers/corpus.js';
import { splitLayoutIn } from './helpers/split-layout.js';

const markdown = '# Title of the card\n\nA short paragraph of body text that wraps over a few lines.\n\n> A quote to close.';

// At 2000×4000 a growing card is as tall as a fixed one (the content is short), so autoSplit covers both.
const sizes = [
  { width: 200, height: 200, splitModes: ['noSplit', 'autoSplit'] },
  { width: 2000, height: 4000, splitModes: ['autoSplit'] },
] as const;

describe('card sizes', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  for (const { splitModes, ...size } of sizes) {
    it(`keeps decorations inside the card and off the text at ${size.width}×${size.height} in every theme`, async () => {
      const problems: string[] = [];
      for (const [themeIndex, theme] of service.app.cards.themes.themes.filter((candidate) => candidate.builtin).entries()) {
        for (const splitMode of splitModes) {
          // A 2,000×4,000 card's capture cost far more than its layout (about 2 s a theme): it is
          // captured in the first theme, and in the others the box that a capture takes (its
          // width and height times the scale, whatever the theme) is measured instead.
          const capture = size.width * size.height <= 1_000_000 || themeIndex === 0;
          const { images, cards } = await renderWithGeometry(service, { markdown, theme: theme.id, ...size, splitMode, scale: 1 }, { capture });
          assert.equal(images.length, capture ? cards.length : 0, `${theme.id} ${splitMode}: one image per card`);
          for (const image of images) {
            assert.equal(image.width, size.width, `${theme.id} ${splitMode}: image width`);
            if (splitMode === 'autoSplit') assert.equal(image.height, size.height, `${theme.id} ${splitMode}: image height`);
          }
          // (A card under 320×320 is laid out at 320 and drawn smaller: its box is not its image's size.)
          if (!capture) {
            for (const card of cards) {
              assert.equal(card.card.right - card.card.left, size.width, `${theme.id} ${splitMode}: card width`);
              if (splitMode === 'autoSplit') assert.equal(card.card.bottom - card.card.top, size.height, `${theme.id} ${splitMode}: card height`);
            }
          }
          for (const [index, card] of cards.entries()) problems.push(...layoutProblems(card, `${theme.id} ${splitMode} card ${index + 1}`));
          // The title is never pushed off the first card by the decorations.
          assert.ok(cards[0]!.lines.some((line) => line.heading), `${theme.id} ${splitMode}: the title is on the first card`);
        }
      }
      assert.deepEqual(problems, []);
    });
  }

  it("draws the footer's signature whole at 200×200 in every theme: the name without the handle, never both cut", async () => {
    const looks = service.app.cards.themes.themes.filter((theme) => theme.builtin);
    const footer = signatureHtml({ author: 'Lin Xiaoman 林小满', handle: '@xiaoman.notes', signature: true });
    // Laid out as the service lays out a card of that size (a 200×200 card at 320 px, drawn smaller).
    const markup = (width: number) =>
      looks
        .map((theme) => cardMarkup({ theme, width, height: width, fontScale: layoutFontScale({ width, height: width, fontScale: 1 }), fixedHeight: true, contentHtml: '<p>Text.</p>', pageLabel: '2/11', footerHtml: footer }))
        .join('');
    const read = (width: number) =>
      service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        await page.layout(markup(width));
        return page.evaluate<Array<{ nameCut: boolean; handleShown: boolean }>>(`[...document.querySelectorAll('#cards > .card')].map((card) => {
          const name = card.querySelector('.signature .author-name');
          const handle = card.querySelector('.signature .author-handle');
          return { nameCut: name.scrollWidth > name.clientWidth + 1, handleShown: handle.getClientRects().length > 0 };
        })`);
      });
    const [small, large] = [await read(200), await read(1080)];
    assert.deepEqual(small.map((card, index) => card.nameCut && looks[index]!.id), small.map(() => false), 'names cut at 200×200');
    assert.deepEqual(small.map((card, index) => card.handleShown && looks[index]!.id), small.map(() => false), 'handles shown at 200×200');
    assert.deepEqual(large.map((card, index) => !card.handleShown && looks[index]!.id), large.map(() => false), 'handles hidden at 1080×1080');
  });

  it('keeps a heading that holds a row of badges on the card, its words and badges wrapped, in every theme', async () => {
    // Mermaid's Chinese README: "## 贡献者" and three shields.io badges (no network here: their
    // placeholders, chips of their alt text).
    const badges = ['Good first issue', 'Contributors', 'Commits'].map((alt) => `[![${alt}](https://img.shields.io/${alt.length}.svg)](https://example.com/${alt.length})`);
    const document = `## 贡献者 ${badges.join(' ')}\n\nMermaid 是一个不断发展中的社区。`;
    const problems: string[] = [];
    for (const theme of service.app.cards.themes.themes.filter((candidate) => candidate.builtin)) {
      const { cards } = await renderWithGeometry(service, { markdown: document, theme: theme.id, splitMode: 'noSplit', scale: 1 }, { capture: false });
      for (const [index, card] of cards.entries()) problems.push(...layoutProblems(card, `${theme.id} card ${index + 1}`));
      assert.ok(cards[0]!.lines.some((line) => line.heading && line.text.includes('贡献者')), `${theme.id}: the heading's word is drawn`);
    }
    assert.deepEqual(problems, []);
  });

  it("keeps notebook's text on its ruled lines at 200×200, where other themes' headings shrink", async () => {
    // Narrow cards draw headings at 90 % (_base.css); in notebook that lifted every line under a
    // heading off the ruled lines by a tenth of the heading's height. The bottom of every line of
    // the document's paragraphs lies the same distance above a rule: one residue modulo the 28-px line.
    // The declaration in traditional Chinese and in Arabic: headings over paragraphs, as on paper.
    for (const { markdown } of corpusDocuments().filter((document) => document.name === 'zh-hant' || document.name === 'ar')) {
      const bottoms = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        const size = { width: 200, height: 200, scale: 1, fontScale: layoutFontScale({ width: 200, height: 200, fontScale: 1 }) };
        await splitLayoutIn(page, service, { markdown, splitMode: 'autoSplit', theme: 'notebook', ...size });
        return page.evaluate<number[]>(`(() => {
          const bottoms = [];
          const range = document.createRange();
          for (const card of document.querySelectorAll('#cards > .card')) {
            const top = card.querySelector('.card-content-inner').getBoundingClientRect().top;
            // The document's own paragraphs (a quote is a sticky note on the page, not on its lines).
            for (const paragraph of card.querySelectorAll('.card-content-inner > p')) {
              range.selectNodeContents(paragraph);
              for (const line of range.getClientRects()) bottoms.push(line.bottom - top);
            }
          }
          return bottoms;
        })()`);
      });
      assert.ok(bottoms.length >= 6, 'lines measured');
      const residues = bottoms.map((bottom) => ((bottom % 28) + 28) % 28);
      assert.ok(Math.max(...residues) - Math.min(...residues) < 1, `line bottoms modulo the ruled line: ${residues.map((r) => r.toFixed(1)).join(', ')}`);
    }
  });

  it('lays a card smaller than 320×320 out as a 320×320 card drawn smaller: the same cards, the same text on each, none empty', async () => {
    // A real document: the start of Mermaid's Chinese README, with its headings, lists and code.
    const readme = fs.readFileSync(path.join(projectRoot, 'node_modules', 'mermaid', 'README.zh-CN.md'), 'utf8').split('\n').slice(0, 60).join('\n');
    for (const theme of ['minimal', 'pop-art', 'business', 'art-deco', 'notebook']) {
      // At scale 1: the cards' layout is the same at every scale, and there are fewer pixels to encode.
      const render = (size: number) => service.app.cards.render(checkRequest({ markdown: readme, theme, width: size, height: size, splitMode: 'autoSplit', scale: 1 }).request, AbortSignal.timeout(120_000));
      const [small, reference] = [(await render(200)).images, (await render(320)).images];
      assert.deepEqual(small.map((image) => image.alt), reference.map((image) => image.alt), `${theme}: the cards of 200×200 hold what those of 320×320 hold`);
      for (const [index, image] of small.entries()) {
        assert.deepEqual([image.width, image.height], [200, 200], `${theme} card ${index + 1}: 200×200`);
        assert.notEqual(image.alt.trim(), '', `${theme} card ${index + 1} is empty`);
      }
    }
  });
});
