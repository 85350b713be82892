// Themes draw some list bullets and heading marks as arrows or prompts (a ">" before an item, a
// "▸"). Right to left the item stands on the other side of its mark, so a mark that points at its
// text left to right must point the other way: a ">" at the right of an Arabic item points away
// from it. Checked in every theme from the marks' own text, as the page computes it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { startService, type RunningService } from './helpers/service.js';

/** Marks that point right, and their mirror images. */
const pointingRight = /[>›»→▸▶►➜⟩]/u;
const pointingLeft = /[<‹«←◂◀◄⟨]/u;

const documents = {
  ltr: '#### A small heading\n\n- first item\n- second item',
  rtl: '#### عنوان فرعي صغير\n\n- عنصر أول\n- عنصر ثانٍ',
};

describe('marks that point at their text', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('point left at a right-to-left item or heading, in every theme', async () => {
    const problems: string[] = [];
    let arrows = 0;
    for (const theme of service.app.cards.themes.themes) {
      for (const [direction, markdown] of Object.entries(documents)) {
        const { html } = await renderMarkdown(markdown);
        const marks = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
          await page.layout(cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html }));
          return page.evaluate<string[]>(`[...document.querySelectorAll('#cards .card-content-inner :is(li, h4)')]
            .map((el) => getComputedStyle(el, '::before').content)
            .filter((content) => content && content !== 'none' && content !== 'normal')`);
        });
        for (const mark of marks) {
          const wrong = direction === 'rtl' ? pointingRight : pointingLeft;
          if (pointingRight.test(mark) || pointingLeft.test(mark)) arrows++;
          if (wrong.test(mark)) problems.push(`${theme.id} (${direction}): ${mark}`);
        }
      }
    }
    // The themes that draw arrows at all (darktech, cyberpunk, typewriter) keep the check honest.
    assert.ok(arrows >= 6, `only ${arrows} arrow marks were found`);
    assert.deepEqual(problems, []);
  });
});
