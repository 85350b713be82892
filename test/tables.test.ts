// Tables keep their words whole (README.md, "Markdown and MDX"): no word or number breaks while
// any column can still give room; a table too wide for the card shrinks its type, down to a
// readable minimum, before any word breaks; and then only its widest columns break words.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderWithGeometry, type CardGeometry } from './helpers/card-geometry.js';
import { startService, type RunningService } from './helpers/service.js';

const languages = [
  '| Language | Speakers | Script | Family | Rank |',
  '|---|---|---|---|---|',
  '| Mandarin Chinese | 1,100,000,000 | Hanzi | Sino-Tibetan | 1 |',
  '| Spanish | 4,200,000 | Latin alphabet with diacritics and a long description | Indo-European | 2 |',
].join('\n');

const tenColumns = [
  '| Region | Requests | Latency | Errors | Replicas | Shards | Memory | Disk | Owner | Status |',
  '|---|---|---|---|---|---|---|---|---|---|',
  '| us-east | 12,345 | 41ms | 0.1% | 3 | 12 | 2GiB | 80GB | ops | ok |',
].join('\n');

const longUrl = ['| Key | Value |', '|---|---|', '| url | https://example.com/a/very/long/path/that/cannot/possibly/fit/in/the/card/width |', '| short | ok |'].join('\n');

/** Font sizes of the table's cells, as drawn. */
async function cellFontSizes(service: RunningService, markdown: string, theme: string): Promise<{ card: CardGeometry; sizes: number[] }> {
  const { cards } = await renderWithGeometry(service, { markdown, theme, scale: 1 });
  return { card: cards[0]!, sizes: cards[0]!.tableFontSizes };
}

describe('tables', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  for (const theme of ['plain-notes', 'business', 'cyberpunk', 'coil-notebook', 'traditional-chinese']) {
    it(`gives short columns their words in ${theme}`, async () => {
      const { card, sizes } = await cellFontSizes(service, languages, theme);
      assert.deepEqual(card.brokenWords, [], 'no word or number is broken');
      assert.ok(card.tables.every((table) => table.right <= card.content.right + 1), 'the table fits the card');
      assert.equal(new Set(sizes).size <= 2, true, 'the theme keeps its type');
    });

    it(`shrinks a 10-column table's type before breaking words in ${theme}`, async () => {
      const wide = await cellFontSizes(service, tenColumns, theme);
      const normal = await cellFontSizes(service, languages, theme);
      assert.ok(Math.max(...wide.sizes) < Math.max(...normal.sizes), 'the wide table is set smaller');
      assert.ok(Math.min(...wide.sizes) >= 9.3, `no smaller than a readable minimum (${Math.min(...wide.sizes)} px)`);
      assert.ok(wide.card.tables.every((table) => table.right <= wide.card.content.right + 1), 'the table fits the card');
      assert.deepEqual(wide.card.brokenWords.filter((word) => !word.allowed), [], 'words break only where the fitting allowed it');
    });
  }

  it('breaks a URL that fits no card, and nothing else, keeping the type', async () => {
    const { card, sizes } = await cellFontSizes(service, longUrl, 'plain-notes');
    assert.ok(card.brokenWords.length > 0 && card.brokenWords.every((word) => word.allowed));
    assert.ok(card.brokenWords.every((word) => /example|long|path|https|card|width|possibly|cannot|fit|very/.test(word.word)), JSON.stringify(card.brokenWords));
    assert.equal(Math.min(...sizes), 14, 'the table keeps its type: smaller type would not save the URL');
    assert.ok(card.tables.every((table) => table.right <= card.content.right + 1), 'the table fits the card');
  });
});
