// Tables keep their words whole (README.md, "Markdown and MDX"): no word or number breaks while
// any column can still give room; identifiers break only at _ . / - and case changes; a table too
// wide for the card shrinks its type, down to a readable minimum (12 px), and beyond that is drawn
// stacked at the theme's type, each row a block of "label: value" lines.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { fitTables } from '../src/cards/render/fit-tables.js';
import { projectRoot } from '../src/paths.js';
import { renderWithGeometry, type CardGeometry } from './helpers/card-geometry.js';
import { startService, type RunningService } from './helpers/service.js';
import { typesettingFaults } from './helpers/typesetting-report.js';

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

/** A table that fits every card at its theme's type: the reference for that type. */
const twoColumns = ['| Key | Value |', '|---|---|', '| a | 1 |'].join('\n');

const longUrl = ['| Key | Value |', '|---|---|', '| url | https://example.com/a/very/long/path/that/cannot/possibly/fit/in/the/card/width |', '| short | ok |'].join('\n');

/** pngjs's comparison of PNG libraries (ten short columns), read from its README in node_modules. */
function pngjsComparisonTable(): string {
  const readme = fs.readFileSync(path.join(projectRoot, 'node_modules', 'pngjs', 'README.md'), 'utf8');
  return readme.slice(readme.indexOf('| Name')).split(/\n\s*\n/)[0]!;
}

/** Font sizes of the table's cells, as drawn. */
async function cellFontSizes(service: RunningService, markdown: string, theme: string): Promise<{ card: CardGeometry; sizes: number[] }> {
  const { cards } = await renderWithGeometry(service, { markdown, theme, scale: 1 }, { capture: false });
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

    it(`draws a 10-column table stacked at the theme's type, each value labelled, in ${theme}`, async () => {
      const wide = await cellFontSizes(service, tenColumns, theme);
      const small = await cellFontSizes(service, twoColumns, theme);
      assert.deepEqual(wide.card.tableForms, [{ stacked: true, labels: tenColumns.split('\n')[0]!.split('|').slice(1, -1).map((label) => `"${label.trim()}: "`) }]);
      assert.deepEqual(new Set(wide.sizes), new Set(small.sizes), 'the stacked table keeps the theme type');
      assert.ok(wide.card.tables.every((table) => table.right <= wide.card.content.right + 1), 'the table fits the card');
      assert.deepEqual(wide.card.brokenWords, [], 'no word is broken');
    });
  }

  it("lays a stacked table's records out in columns, so that several share a card (pngjs's comparison table)", async () => {
    // Ten columns of short fields: stacked one field a line, every record took a card of its own,
    // half of it empty. Read from the package's README at test time.
    const table = pngjsComparisonTable();
    const records = table.split('\n').length - 2;
    assert.ok(records >= 6, `${records} records`);
    for (const theme of ['brand-a', 'cyberpunk', 'plain-notes']) {
      const { cards } = await renderWithGeometry(service, { markdown: table, theme, splitMode: 'autoSplit', width: 440, height: 586 }, { capture: false });
      assert.ok(cards.every((card) => card.tableForms.every((form) => form.stacked)), `${theme}: drawn stacked`);
      assert.ok(cards.length <= Math.ceil(records / 2), `${theme}: ${records} records on ${cards.length} cards`);
      for (const card of cards) assert.ok(card.tables.every((box) => box.right <= card.content.right + 1 && box.bottom <= card.content.bottom + 1), `${theme}: the records fit their card`);
      // A record alone at the head or foot of a card is no widow (it is a block of lines): no card
      // but the last holds one record under room for another.
      const fill = cards.slice(0, -1).map((card) => (card.contentBottom - card.content.top) / (card.content.bottom - card.content.top));
      assert.ok(fill.every((share) => share >= 0.5), `${theme}: cards filled ${fill.map((share) => share.toFixed(2)).join(', ')}`);
    }
  });

  it("ends a table on the card it began on when the rest of it fits there (change-case's README)", async () => {
    // change-case's README, read from node_modules: its method table has 12 rows. In these themes
    // at 440×586 the last three went on to the next card under 100-130 px of room, which they fit:
    // ending a card inside a block whose rest fits cost half a card, and spreading the room more
    // evenly over the cards after was worth that.
    const markdown = fs.readFileSync(path.join(projectRoot, 'node_modules', 'change-case', 'README.md'), 'utf8');
    assert.match(markdown, /\| `trainCase` +\|/, 'the README still has its method table');
    for (const theme of ['meadow-dawn', 'pop-art', 'social-purple']) {
      const { cards, blocks } = await renderWithGeometry(service, { markdown, theme, splitMode: 'autoSplit', width: 440, height: 586, scale: 1 }, { lines: true, capture: false });
      const cut = typesettingFaults(cards, blocks, theme, 'autoSplit').filter((fault) => fault.kind === 'block cut though its rest fits');
      assert.deepEqual(cut, [], theme);
    }
  });

  it('goes on field by field with a stacked record taller than the card, losing none of it (200×200)', async () => {
    // Ten fields, one a line on a card laid out 320 px wide: taller than the card. A row is otherwise
    // one unbreakable piece, and this one was clipped at the card's edge with its last fields.
    const table = pngjsComparisonTable().split('\n').slice(0, 4).join('\n');
    const values = table.split('\n').slice(2).flatMap((row) => row.split('|').slice(1, -1).map((cell) => cell.trim()).filter(Boolean));
    for (const theme of ['notebook', 'minimal']) {
      const { cards } = await renderWithGeometry(service, { markdown: table, theme, splitMode: 'autoSplit', width: 200, height: 200 }, { lines: true, capture: false });
      assert.ok(cards.length > 2, `${theme}: ${cards.length} cards`);
      const drawn = cards.flatMap((card) => card.lines.filter((line) => line.bottom <= card.content.bottom + 1).map((line) => line.text.trim()));
      // Compared as one string: a word break point (<wbr>) cuts a value's text in two.
      assert.equal(drawn.join(''), values.join(''), `${theme}: every field drawn on a card, in order`);
    }
  });

  it("keeps a heading with its stacked table's first fields at 200×200 (ioredis's versions)", async () => {
    // Each record of four fields stood as one piece: the heading and the first record were taller
    // than the card, so the heading made a card of one line, three quarters empty.
    const readme = fs.readFileSync(path.join(projectRoot, 'node_modules', 'ioredis', 'README.md'), 'utf8');
    const versions = readme.slice(readme.indexOf('# Versions'), readme.indexOf('Refer to'));
    assert.match(versions, /\| Version +\| Branch/);
    for (const theme of ['art-deco', 'pop-art']) {
      const { cards, blocks } = await renderWithGeometry(service, { markdown: versions, theme, splitMode: 'autoSplit', width: 200, height: 200 }, { lines: true, capture: false });
      const label = `${theme} at 200×200`;
      const first = cards[0]!.lines.map((line) => line.text.trim()).filter(Boolean);
      assert.ok(cards[0]!.tableForms.some((form) => form.stacked), `${label}: the table is stacked`);
      assert.ok(first.length >= 3, `${label}: the heading's card holds ${JSON.stringify(first)}`);
      assert.deepEqual(typesettingFaults(cards, blocks, label, 'autoSplit').map((fault) => fault.message), [], label);
    }
  });

  // Tables a little wider than the card at each theme's type, within it at 12 px (the monospace
  // cyberpunk stacks even five short columns).
  const six = ['| Region | Latency | Errors | Shards | Owner | Status |', '|---|---|---|---|---|---|', '| us-east | 41ms | 0.1% | 12 | ops | ok |'].join('\n');
  const five = ['| Region | Requests | Latency | Replicas | Status |', '|---|---|---|---|---|', '| us-east | 12,345 | 41ms | 3 | ok |'].join('\n');
  for (const [theme, markdown] of [['plain-notes', six], ['business', six], ['traditional-chinese', six], ['coil-notebook', five]] as const) {
    it(`shrinks the type of a table a little too wide, not below 12 px, and keeps its columns, in ${theme}`, async () => {
      const { card, sizes } = await cellFontSizes(service, markdown, theme);
      const small = await cellFontSizes(service, twoColumns, theme);
      assert.deepEqual(card.tableForms.map((form) => form.stacked), [false]);
      assert.ok(Math.max(...sizes) < Math.max(...small.sizes), 'set smaller than the theme type');
      assert.ok(Math.min(...sizes) >= 12, `no smaller than 12 px (${Math.min(...sizes)} px)`);
      assert.ok(card.tables.every((table) => table.right <= card.content.right + 1), 'the table fits the card');
      assert.deepEqual(card.brokenWords, [], 'no word is broken');
    });
  }

  it('breaks identifiers and a URL only at _ . / - and case changes, keeping the type', async () => {
    const identifiers = ['| Setting | Default |', '|---|---|', '| maxConcurrentRequests_per_replica | 8 |', ...longUrl.split('\n').slice(2)].join('\n');
    const { card, sizes } = await cellFontSizes(service, identifiers, 'plain-notes');
    assert.deepEqual(card.brokenWords, [], 'no word broken inside');
    assert.equal(Math.min(...sizes), 14, 'the table keeps its type');
    assert.ok(card.tables.every((table) => table.right <= card.content.right + 1), 'the table fits the card');
  });
  it('puts at most 2,000 identifier break points in a table, however many its cells would take', async () => {
    const markdown = ['| k | v | w | x | y | z |', '|---|---|---|---|---|---|', `| ${'aB'.repeat(3000)} | ${'ok-go'.repeat(300)} | x | y | z | q |`].join('\n');
    const theme = service.app.cards.themes.get('plain-notes')!;
    const { html } = await renderMarkdown(markdown);
    const fitted = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), (page) =>
      fitTables(page, { theme, width: 440, height: 586, scale: 1, fontScale: 1, contentHtml: html }),
    );
    const breaks = fitted.match(/<wbr>/g)?.length ?? 0;
    // The 300 of the second cell are placed; the 5,999 of the first would pass the bound, and are not.
    assert.equal(breaks, 300);
  });
});
