// Real documents, not written for cardwright (test/helpers/corpus.ts: package READMEs from
// node_modules and texts in eight scripts), rendered in every theme and every split mode, checked
// the way a reader checks the cards: no line of text past the card's edge, no word or number in a
// table broken while another column could give room (README.md, "Markdown and MDX"), the theme's
// decorations inside the card and clear of the text, every text run drawn by a bundled face
// (Chromium's CSS.getPlatformFontsForNode), no code block, quote or table frame without a line of
// its content, and no autoSplit card but the last left more than about a third empty; and every
// card's alt text is there, within its maximum, the card's own lines in order and in the card's
// script (helpers/alt-text-check.ts). Each document takes each split mode in a
// different theme, so the themes rotate through the corpus and every theme is covered; a few
// pairings the rotation misses are laid out as well (corpusPinned). No autoSplit or hrSplit card
// ends inside a list, paragraph or quote whose rest would have fitted under it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import type { SplitMode } from '../src/cards/render/render-cards.js';
import { splitModes } from '../src/cards/request/schema.js';
import { altTextProblems } from './helpers/alt-text-check.js';
import { bundledFamilies } from './helpers/bundled-fonts.js';
import { collisionKinds, corpusDocuments, corpusPinned, corpusSizes, corpusSmallest, type CorpusDocument } from './helpers/corpus.js';
import { renderWithGeometry } from './helpers/card-geometry.js';
import { countByKind, typesettingFaults, type Fault, type FaultKind } from './helpers/typesetting-report.js';
import { inEachTheme } from './helpers/page-inspection.js';
import { startService, type RunningService } from './helpers/service.js';

describe('corpus', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('lays real documents out cleanly in every theme, split mode and platform size', async () => {
    const documents = corpusDocuments();
    const themes = service.app.cards.themes.themes.filter((theme) => theme.builtin);
    assert.ok(documents.length * splitModes.length >= themes.length, 'every theme gets a document');
    const faults: Fault[] = [];
    const problems: string[] = [];
    const altProblems: string[] = [];
    let splitCards = 0;
    const bundled = bundledFamilies();
    // KaTeX's own faces draw formulas (src/cards/markdown/math.ts serves them like the bundled fonts).
    const isBundled = (family: string) => family.startsWith('KaTeX_') || bundled.some((name) => family === name || family.startsWith(`${name} `));
    const used = new Set<string>();
    const sizesUsed = new Set<string>();
    const check = async (document: CorpusDocument, themeId: string, splitMode: SplitMode, size: { width: number; height: number }, allowed: readonly FaultKind[] = []) => {
      const label = `${document.name} in ${themeId} (${splitMode}, ${size.width}×${size.height})`;
      const { images, cards, fonts, blocks } = await renderWithGeometry(service, { markdown: document.markdown, theme: themeId, splitMode, scale: 1, ...size }, { fonts: true, lines: true });
      for (const run of fonts) {
        const foreign = run.fonts.filter((font) => !font.isCustomFont || !isBundled(font.familyName));
        if (foreign.length > 0) problems.push(`${label}: ${JSON.stringify(run.text.slice(0, 24))} drawn by ${foreign.map((font) => font.familyName).join(', ')}`);
      }
      assert.ok(images.length >= 1, `${label}: rendered`);
      for (const image of images) {
        assert.equal(image.width, size.width, `${label}: image width`);
        if (splitMode !== 'noSplit') assert.equal(image.height, size.height, `${label}: image height`);
      }
      if (splitMode === 'autoSplit') splitCards += cards.length - 1;
      faults.push(...typesettingFaults(cards, blocks, label, splitMode).filter((fault) => !allowed.includes(fault.kind)));
      altProblems.push(...altTextProblems(images, blocks, label));
    };
    for (const [d, document] of documents.entries()) {
      for (const [m, splitMode] of splitModes.entries()) {
        // Themes and sizes rotate through the corpus at different periods, so they meet in many pairs.
        const theme = themes[(d * splitModes.length + m) % themes.length]!;
        // The texts take 200×200 in the rotation, the READMEs each once more below: there a card
        // holds five to eight lines and some rules collide (helpers/corpus.ts, collisionKinds).
        const sizes = document.name.endsWith('README') ? corpusSizes.filter((candidate) => candidate.width >= 320) : corpusSizes;
        const size = sizes[(d + m) % sizes.length]!;
        used.add(theme.id);
        sizesUsed.add(`${size.width}×${size.height}`);
        await check(document, theme.id, splitMode, size);
      }
    }
    for (const { document: name, theme, splitMode, ...size } of corpusPinned) {
      await check(documents.find((document) => document.name === name)!, theme, splitMode, size);
    }
    // Every README at 200×200 too: no fault there but where rules collide.
    assert.deepEqual(corpusSmallest.map((pairing) => pairing.document).sort(), documents.filter((document) => document.name.endsWith('README')).map((document) => document.name).sort());
    for (const { document: name, theme } of corpusSmallest) {
      await check(documents.find((document) => document.name === name)!, theme, 'autoSplit', { width: 200, height: 200 }, collisionKinds);
    }
    assert.equal(used.size, themes.length, 'every theme was used');
    assert.equal(sizesUsed.size, corpusSizes.length, 'every size was used');
    assert.ok(splitCards >= 20, `${splitCards} autoSplit cards measured`);
    assert.deepEqual(problems, []);
    assert.deepEqual(
      faults.map((fault) => `${fault.kind}: ${fault.message}`),
      [],
      `faults by kind: ${JSON.stringify(countByKind(faults))}`,
    );
    assert.deepEqual(altProblems, [], altProblems.join('\n'));
  });

  it('draws a code window\'s three dots once, whether the block is fenced or written as HTML', async () => {
    // brand-a drew its window dots in the <pre>'s background, and the fenced block's header drew
    // them again under them. Dots are the header's .code-dot elements and circular radial-gradient layers.
    const { html } = await renderMarkdown('```js\nconst a = 1;\n```\n\n<pre>raw pre</pre>');
    const problems: string[] = [];
    const themes = service.app.cards.themes.themes.filter((candidate) => candidate.builtin);
    const dotsByTheme = await inEachTheme<number[]>(service, themes, html, `[...card.querySelectorAll('.card-content-inner pre')].map((pre) => {
      const header = [...pre.querySelectorAll('.code-dot')].filter((dot) => dot.getBoundingClientRect().width > 0 && getComputedStyle(dot).visibility !== 'hidden').length;
      const painted = (getComputedStyle(pre).backgroundImage.match(/radial-gradient\\(circle/g) ?? []).length;
      return header + painted;
    })`);
    for (const [index, dots] of dotsByTheme.entries()) {
      assert.equal(dots.length, 2, `${themes[index]!.id}: both blocks measured`);
      if (dots.some((count) => count > 3)) problems.push(`${themes[index]!.id}: ${dots.join(', ')} dots (fenced, HTML)`);
    }
    assert.deepEqual(problems, []);
  });
});
