// Real documents, not written for cardwright (test/helpers/corpus.ts: package READMEs from
// node_modules and texts in eight scripts), rendered in every theme and every split mode, checked
// the way a reader checks the cards: no line of text past the card's edge, no word or number in a
// table broken while another column could give room (README.md, "Markdown and MDX"), the theme's
// decorations inside the card and clear of the text, every text run drawn by a bundled face
// (Chromium's CSS.getPlatformFontsForNode), no code block, quote or table frame without a line of
// its content, and no autoSplit card but the last left more than about a third empty. Each document takes each split mode in a
// different theme, so the themes rotate through the corpus and every theme is covered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { splitModes } from '../src/cards/request/schema.js';
import { bundledFamilies } from './helpers/bundled-fonts.js';
import { corpusDocuments } from './helpers/corpus.js';
import { layoutProblems, renderWithGeometry } from './helpers/card-geometry.js';
import { startService, type RunningService } from './helpers/service.js';

describe('corpus', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('lays real documents out cleanly in every theme and split mode', async () => {
    const documents = corpusDocuments();
    const themes = service.app.cards.themes.themes.filter((theme) => theme.builtin);
    assert.ok(documents.length * splitModes.length >= themes.length, 'every theme gets a document');
    const problems: string[] = [];
    const fills: number[] = [];
    const bundled = bundledFamilies();
    // KaTeX's own faces draw formulas (src/cards/markdown/math.ts serves them like the bundled fonts).
    const isBundled = (family: string) => family.startsWith('KaTeX_') || bundled.some((name) => family === name || family.startsWith(`${name} `));
    const used = new Set<string>();
    for (const [d, document] of documents.entries()) {
      for (const [m, splitMode] of splitModes.entries()) {
        const theme = themes[(d * splitModes.length + m) % themes.length]!;
        used.add(theme.id);
        const label = `${document.name} in ${theme.id} (${splitMode})`;
        const { images, cards, fonts } = await renderWithGeometry(service, { markdown: document.markdown, theme: theme.id, splitMode, scale: 1 }, { fonts: true });
        for (const run of fonts) {
          const foreign = run.fonts.filter((font) => !font.isCustomFont || !isBundled(font.familyName));
          if (foreign.length > 0) problems.push(`${label}: ${JSON.stringify(run.text.slice(0, 24))} drawn by ${foreign.map((font) => font.familyName).join(', ')}`);
        }
        assert.ok(images.length >= 1, `${label}: rendered`);
        for (const image of images) {
          assert.equal(image.width, 440, `${label}: image width`);
          if (splitMode !== 'noSplit') assert.equal(image.height, 586, `${label}: image height`);
        }
        cards.forEach((card, index) => {
          const where = `${label}, card ${index + 1}`;
          problems.push(...layoutProblems(card, where));
          for (const broken of card.brokenWords.filter((word) => !word.allowed)) problems.push(`${where}: table word "${broken.word}" broken`);
          for (const frame of card.emptyFrames) problems.push(`${where}: ${frame} holds no line of its content`);
          if (splitMode === 'autoSplit' && index < cards.length - 1) {
            const used = (card.contentBottom - card.content.top) / (card.content.bottom - card.content.top);
            fills.push(used);
            if (used < 2 / 3 - 0.05) problems.push(`${where}: ${Math.round((1 - used) * 100)}% of the card is left empty before the next card`);
          }
        });
      }
    }
    assert.equal(used.size, themes.length, 'every theme was used');
    assert.ok(fills.length >= 20, `${fills.length} autoSplit cards measured`);
    assert.deepEqual(problems, []);
  });

  it('draws a code window\'s three dots once, whether the block is fenced or written as HTML', async () => {
    // brand-a drew its window dots in the <pre>'s background, and the fenced block's header drew
    // them again under them. Dots are the header's .code-dot elements and circular radial-gradient layers.
    const { html } = await renderMarkdown('```js\nconst a = 1;\n```\n\n<pre>raw pre</pre>');
    const problems: string[] = [];
    for (const theme of service.app.cards.themes.themes.filter((candidate) => candidate.builtin)) {
      const dots = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        await page.layout(cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html }));
        return page.evaluate<number[]>(`[...document.querySelectorAll('#cards .card-content-inner pre')].map((pre) => {
          const header = [...pre.querySelectorAll('.code-dot')].filter((dot) => dot.getBoundingClientRect().width > 0 && getComputedStyle(dot).visibility !== 'hidden').length;
          const painted = (getComputedStyle(pre).backgroundImage.match(/radial-gradient\\(circle/g) ?? []).length;
          return header + painted;
        })`);
      });
      if (dots.some((count) => count > 3)) problems.push(`${theme.id}: ${dots.join(', ')} dots (fenced, HTML)`);
    }
    assert.deepEqual(problems, []);
  });
});
