// hrSplit end to end: a card boundary at every top-level `---` and nowhere else, overflowing
// sections continued on more cards of the same size, and one clipped card per section with
// overHiddenMode.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodePng, download } from './helpers/images.js';
import { startService, type RunningService } from './helpers/service.js';
import { assertWellSplit, splitLayout } from './helpers/split-layout.js';

const sections = fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'split', 'hr-sections.md'), 'utf8');

describe('hrSplit', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('starts a card at every top-level rule, continues a long section, and draws no rule', async () => {
    const layout = await splitLayout(service, { markdown: sections, splitMode: 'hrSplit' });
    assertWellSplit(layout, 'hr-sections');
    const cards = layout.report!.cards;
    const first = (title: string) => cards.findIndex((card) => card.text.includes(title));
    assert.equal(first('Section one'), 0);
    assert.equal(first('Section two'), 1);
    assert.equal(first('Section three'), 2);
    const four = first('Section four');
    assert.ok(four >= 4, 'the long third section continues on at least one more card');
    assert.equal(four, cards.length - 1);
    // A rule inside code or a quote is content, not a break: both stay on the second section's card.
    assert.match(cards[1]!.text, /---\s*this rule is inside code/);
    assert.match(cards[1]!.html, /<blockquote[^>]*>\s*<hr>/);
    // The only rule drawn anywhere is the one inside the quote.
    assert.equal(cards.reduce((count, card) => count + (card.html.match(/<hr/g)?.length ?? 0), 0), 1);

    const { status, json } = await service.generate({ markdown: sections, splitMode: 'hrSplit' });
    assert.equal(status, 200);
    assert.equal(json.images.length, cards.length);
    for (const image of json.images) {
      const png = await decodePng((await download(image.url)).bytes);
      assert.deepEqual([png.width, png.height], [880, 1172]);
    }
  });

  it('with overHiddenMode makes exactly one clipped card per section', async () => {
    const layout = await splitLayout(service, { markdown: sections, splitMode: 'hrSplit', overHiddenMode: true });
    const cards = layout.report!.cards;
    assert.equal(cards.length, 4);
    assert.deepEqual(
      cards.map((card) => /Section (\w+)/.exec(card.text)?.[1]),
      ['one', 'two', 'three', 'four'],
    );
    // The long section runs past the card's content area: it is clipped, not continued.
    const long = cards[2]!;
    assert.ok(long.boxes.some((box) => box.top > long.contentBottom));

    const { status, json } = await service.generate({ markdown: sections, splitMode: 'hrSplit', overHiddenMode: true });
    assert.equal(status, 200);
    assert.equal(json.images.length, 4);
    for (const image of json.images) assert.deepEqual([image.width, image.height], [880, 1172]);
  });

  it('skips empty sections around and between rules', async () => {
    const markdown = '---\n\n# First\n\nOne.\n\n---\n\n---\n\n# Second\n\nTwo.\n\n***\n';
    const { status, json } = await service.generate({ markdown, splitMode: 'hrSplit' });
    assert.equal(status, 200);
    assert.equal(json.images.length, 2);
  });

  it('paginates a document without rules like autoSplit', async () => {
    const markdown = Array.from({ length: 12 }, (_, i) => `## Part ${i + 1}\n\n${'A sentence that fills the card. '.repeat(12)}`).join('\n\n');
    const hr = await splitLayout(service, { markdown, splitMode: 'hrSplit' });
    const auto = await splitLayout(service, { markdown, splitMode: 'autoSplit' });
    assert.ok(hr.needed > 2);
    assert.equal(hr.needed, auto.needed);
    assertWellSplit(hr, 'no rules');
  });

  it('answers 400 with the number of cards needed for more than 50 sections', async () => {
    const markdown = Array.from({ length: 51 }, (_, i) => `Section ${i + 1}`).join('\n\n---\n\n');
    for (const overHiddenMode of [false, true]) {
      const { status, json } = await service.generate({ markdown, splitMode: 'hrSplit', overHiddenMode });
      assert.equal(status, 400);
      assert.equal(json.error, 'invalid_request');
      assert.match(json.message, /needs 51 cards/);
    }
  });
});
