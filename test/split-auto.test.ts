// autoSplit end to end: real HTTP, real Chromium. Each fixture must become cards of exactly the
// requested size in which no line is cut, nothing is lost or doubled, and no card ends in a heading;
// the page's own geometry is read through the pagination report of the same service.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodePng, differingFraction, download, pixel, type DecodedPng } from './helpers/images.js';
import { checkRequest } from '../src/cards/request/check.js';
import { layoutFontScale } from '../src/cards/request/resolve.js';
import { startService, type RunningService } from './helpers/service.js';
import { assertWellSplit, pngDataUri, splitLayout, splitLayoutIn } from './helpers/split-layout.js';
import { renderWithGeometry } from './helpers/card-geometry.js';
import { typesettingFaults } from './helpers/typesetting-report.js';
import { corpusDocuments } from './helpers/corpus.js';
import { projectRoot } from '../src/paths.js';

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'split', `${name}.md`), 'utf8');

/** The images of a request, downloaded and decoded, after checking each is exactly `width`×`height`. */
async function images(json: any, width: number, height: number): Promise<DecodedPng[]> {
  const decoded: DecodedPng[] = [];
  for (const image of json.images) {
    assert.deepEqual([image.width, image.height], [width, height]);
    const png = await decodePng((await download(image.url)).bytes);
    assert.deepEqual([png.width, png.height], [width, height], `${image.fileName} is ${width}×${height}`);
    decoded.push(png);
  }
  return decoded;
}

/** A rectangle of an image, for comparing the same region of two cards. */
function crop(png: DecodedPng, top: number, height: number): DecodedPng {
  const rowBytes = png.width * 4;
  return { width: png.width, height, data: png.data.subarray(top * rowBytes, (top + height) * rowBytes) };
}

describe('autoSplit', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it("lays a two-level table of contents out readably: no entry alone at a card's foot, no list shrunk (commander's README)", async () => {
    // commander's README opens with a table of contents two levels deep, read from node_modules.
    // "Options" (minimal) and "Bits and pieces" (meadow-dawn) stayed at the foot of a card while all
    // of their sub-entries went to the next: a break inside a list item cost half a card, less than
    // the room the entry would have left empty. glassmorphism draws a list as tiles side by side;
    // the one top-level entry holding all the others made a tile taller than the card, drawn
    // shrunk to fit it (text of 4.7 px).
    const readme = fs.readFileSync(path.join(projectRoot, 'node_modules', 'commander', 'Readme.md'), 'utf8');
    const markdown = readme.slice(0, readme.lastIndexOf('\n\n', 9000));
    assert.match(markdown, /- \[Bits and pieces\]/, 'the README still has its table of contents');
    for (const theme of ['minimal', 'meadow-dawn', 'glassmorphism']) {
      const { cards, blocks } = await renderWithGeometry(service, { markdown, theme, splitMode: 'autoSplit', width: 440, height: 586, scale: 1 }, { lines: true, capture: false });
      const faults = typesettingFaults(cards, blocks, theme, 'autoSplit');
      assert.deepEqual(faults.filter((fault) => fault.kind === 'paragraph leaves one line on a card' || fault.kind === 'text under the minimum size'), [], theme);
    }
  });

  it("leaves no code block's label over an empty frame at 200×200 (pino's README)", async () => {
    // "This produces:" and the window dots of the JSON under it stood alone on a card, the JSON on
    // the next: the label and two of its source lines (each wrapped over five lines) were more than
    // a card, which made leaving the label at a card's foot as cheap as any collision of rules.
    const pino = corpusDocuments().find((document) => document.name === 'pino README')!;
    assert.match(pino.markdown, /This produces:\n\n```\n\{"level"/, 'the README still shows its output');
    const { cards, blocks } = await renderWithGeometry(service, { markdown: pino.markdown, theme: 'fairytale', splitMode: 'autoSplit', width: 200, height: 200, scale: 1 }, { lines: true, capture: false });
    const faults = typesettingFaults(cards, blocks, 'fairytale', 'autoSplit');
    assert.deepEqual(faults.filter((fault) => fault.kind === 'empty frame' || fault.kind === 'card of one line').map((fault) => fault.message), []);
  });

  it("squeezes the margins between blocks, by a third at most, rather than leave a heading at a card's foot at 200×200 (ioredis's and pino's READMEs)", async () => {
    // A 200×200 card holds five or six lines. ioredis's "Quick Start", its "Install" and the one
    // line of code under them were a few px more than a meadow-dawn card, pino's "Essentials",
    // "Development Formatting" and a line of text more than a pop-art one: the first heading stood
    // alone at the foot of the card before.
    const readme = (name: string) => corpusDocuments().find((document) => document.name === name)!.markdown;
    for (const [name, theme] of [
      ['ioredis README', 'meadow-dawn'],
      ['pino README', 'pop-art'],
    ] as const) {
      const { cards, blocks } = await renderWithGeometry(service, { markdown: readme(name), theme, splitMode: 'autoSplit', width: 200, height: 200, scale: 1 }, { lines: true, capture: false });
      const faults = typesettingFaults(cards, blocks, theme, 'autoSplit');
      assert.deepEqual(faults.filter((fault) => fault.kind === 'heading last on a card').map((fault) => fault.message), [], name);
    }
    // Each squeezed margin against the theme's own, read with the squeeze taken off.
    const margins = await service.app.cards.renderer.run(AbortSignal.timeout(30_000), async (page) => {
      const size = { width: 200, height: 200, scale: 1, fontScale: layoutFontScale({ width: 200, height: 200, fontScale: 1 }) };
      await splitLayoutIn(page, service, { markdown: readme('ioredis README'), splitMode: 'autoSplit', theme: 'meadow-dawn', ...size });
      return page.evaluate<{ squeezed: number; own: number }[]>(`(() => {
        const out = [];
        for (const el of document.querySelectorAll('#cards .card-content-inner [style*="margin"]')) {
          for (const side of ['margin-top', 'margin-bottom']) {
            const squeezed = el.style.getPropertyValue(side);
            if (!squeezed) continue;
            el.style.removeProperty(side);
            out.push({ squeezed: parseFloat(squeezed), own: parseFloat(getComputedStyle(el).getPropertyValue(side)) });
            el.style.setProperty(side, squeezed, 'important');
          }
        }
        return out;
      })()`);
    });
    assert.ok(margins.length > 0, 'some card is squeezed');
    for (const { squeezed, own } of margins) assert.ok(squeezed < own && squeezed >= (own * 2) / 3 - 0.01, `a margin of ${own} px squeezed to ${squeezed} px`);
  });

  it("keeps the rest of a list or code block on its card where it fits, at 200×200 too (prom-client's and pino's READMEs)", async () => {
    // A card there holds five or six lines, so a block cut two lines short left a card a third
    // empty, and the square of the empty room made filling the next card with those two lines look
    // cheaper than the cut: prom-client's code in business, pino's list of links in glassmorphism.
    for (const [name, theme] of [
      ['prom-client README', 'business'],
      ['pino README', 'glassmorphism'],
    ] as const) {
      const { markdown } = corpusDocuments().find((document) => document.name === name)!;
      const { cards, blocks } = await renderWithGeometry(service, { markdown, theme, splitMode: 'autoSplit', width: 200, height: 200, scale: 1 }, { lines: true, capture: false });
      const faults = typesettingFaults(cards, blocks, theme, 'autoSplit');
      assert.deepEqual(faults.filter((fault) => fault.kind === 'block cut though its rest fits').map((fault) => fault.message), [], name);
    }
  });

  it("never shrinks a list drawn as tiles: one column on a narrow card, and one column when a tile is taller than a card (prom-client's README)", async () => {
    // prom-client's README lists collectDefaultMetrics' options, each a line or three of text and
    // code. glassmorphism draws a list as two tiles a row; at 200×200 a tile was a few words wide and
    // taller than the card, and the list was drawn shrunk to fit (text of 4 px).
    const readme = fs.readFileSync(path.join(projectRoot, 'node_modules', 'prom-client', 'README.md'), 'utf8');
    const start = readme.indexOf('`collectDefaultMetrics` optionally accepts');
    assert.ok(start >= 0, 'the README still lists the options');
    const markdown = readme.slice(start, readme.indexOf('```', start));
    for (const size of [{ width: 200, height: 200 }, { width: 440, height: 586 }]) {
      const { cards, blocks } = await renderWithGeometry(service, { markdown, theme: 'glassmorphism', splitMode: 'autoSplit', ...size, scale: 1 }, { lines: true, capture: false });
      const faults = typesettingFaults(cards, blocks, `${size.width}×${size.height}`, 'autoSplit');
      assert.deepEqual(faults.filter((fault) => fault.kind === 'text under the minimum size'), [], `${size.width}×${size.height}`);
    }
  });

  for (const name of ['long-prose', 'long-chinese', 'code-200', 'table-60', 'nested-lists', 'headings', 'mixed']) {
    it(`paginates ${name} into full-size cards with nothing cut, lost, doubled or stranded`, async () => {
      const markdown = fixture(name);
      const layout = await splitLayout(service, { markdown, splitMode: 'autoSplit' });
      assert.ok(layout.needed > 1, `${name} needs more than one card`);
      assertWellSplit(layout, name);

      // At scale 1: the cards are laid out in CSS px whatever the scale, and a quarter of the pixels
      // to draw and encode is enough to see every card's header.
      const { status, json } = await service.generate({ markdown, splitMode: 'autoSplit', scale: 1 });
      assert.equal(status, 200, JSON.stringify(json));
      assert.equal(json.images.length, layout.needed);
      const pngs = await images(json, 440, 586);
      // The theme's header is drawn in full on every card (antialiasing may differ by a few pixels).
      const header = crop(pngs[0]!, 0, 50);
      for (const png of pngs.slice(1)) assert.ok(differingFraction(crop(png, 0, 50), header) < 0.005);
    });
  }

  it('paginates well in every theme and mode, whatever their header, footer, padding and heading styles', async () => {
    const documents = ['mixed', 'headings'].map(fixture);
    for (const theme of service.app.cards.themes.themes) {
      for (const themeMode of theme.modes.length > 0 ? theme.modes : [undefined]) {
        for (const markdown of documents) {
          const layout = await splitLayout(service, { markdown, splitMode: 'autoSplit', theme: theme.id, themeMode });
          assertWellSplit(layout, `${theme.id} ${themeMode ?? ''}`);
        }
      }
    }
  });

  it('repeats the header row of a split table and keeps its rows whole', async () => {
    const layout = await splitLayout(service, { markdown: fixture('table-60'), splitMode: 'autoSplit' });
    const cards = layout.report!.cards;
    const withRows = cards.filter((card) => /Task number \d+/.test(card.html));
    assert.ok(withRows.length >= 3);
    for (const card of withRows) {
      assert.match(card.html, /<thead[^>]*>.*#.*Item.*Owner.*Status.*<\/thead>/s, 'the header row is on every card with rows');
    }
    for (const card of withRows.slice(1)) assert.match(card.html, /<thead data-split-repeat/);
    // Rows 1…60 appear once each, in order, across the cards.
    const rows = cards.flatMap((card) => Array.from(card.text.matchAll(/Task number (\d+)/g), (match) => Number(match[1])));
    assert.deepEqual(rows, Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it('keeps the numbering of ordered lists on the next card', async () => {
    const layout = await splitLayout(service, { markdown: fixture('nested-lists'), splitMode: 'autoSplit' });
    let continuedLists = 0;
    for (const card of layout.report!.cards) {
      for (const match of card.html.matchAll(/<ol([^>]*)>\s*<li([^>]*)>/g)) {
        const [, listAttributes, itemAttributes] = match;
        if (!/split-continued/.test(listAttributes!)) continue;
        continuedLists++;
        const start = /start="(\d+)"/.exec(listAttributes!)?.[1];
        const first = /data-index="(\d+)"/.exec(itemAttributes!)?.[1];
        assert.ok(start && first && Number(start) > 1, `a continued list starts at its item's number: ${match[0]}`);
        assert.equal(start, first);
      }
    }
    assert.ok(continuedLists >= 3, `lists are continued across cards (${continuedLists})`);
    const steps = layout.report!.cards.flatMap((card) => Array.from(card.text.matchAll(/Step (\d+):/g), (match) => Number(match[1])));
    assert.deepEqual(steps, Array.from({ length: 15 }, (_, i) => i + 1));
  });

  it('continues a long code block in its frame', async () => {
    const markdown = fixture('code-200');
    // At scale 1, laid out and drawn: a pixel of the frame shows as well as at 2, in a quarter of the pixels.
    const layout = await splitLayout(service, { markdown, splitMode: 'autoSplit', scale: 1 });
    const cards = layout.report!.cards;
    const continued = cards.filter((card) => /<pre[^>]*class="[^"]*\bsplit-continued/.test(card.html));
    const withCode = cards.slice(1).filter((card) => card.html.includes('<pre'));
    assert.ok(continued.length >= 10);
    assert.equal(continued.length, withCode.length, 'every card after the first that shows code continues the block');
    for (const card of continued) assert.match(card.html, /--split-first-line: \d+/);

    const { json } = await service.generate({ markdown, splitMode: 'autoSplit', scale: 1 });
    const pngs = await images(json, 440, 586);
    // The code block's grey frame reaches the top of the content area of a continued card.
    const top = Math.round(cards[1]!.contentTop) + 2;
    const [r, g, b] = pixel(pngs[1]!, 30, top);
    assert.ok(r < 250 && r > 225 && r === g && g === b, `frame colour at the top of card 2: ${r},${g},${b}`);
  });

  it('keeps a cut quote open at the cut, its opening ornament only where it begins', async () => {
    const markdown = `# Quote\n\n> ${'A quoted thought that keeps going for a while. '.repeat(40)}`;
    // business: a label above the quote; notebook: a strip of tape; art-deco: a rule above and below.
    for (const { theme, ornament } of [{ theme: 'business', ornament: true }, { theme: 'notebook', ornament: true }, { theme: 'art-deco', ornament: false }]) {
      const quotes = await service.app.cards.renderer.run(AbortSignal.timeout(30_000), async (page) => {
        await splitLayoutIn(page, service, { markdown, splitMode: 'autoSplit', theme });
        return page.evaluate<{ classes: string; ornament: string; top: string; bottom: string }[]>(`
          Array.from(document.querySelectorAll('#cards .card blockquote'), (quote) => {
            const style = getComputedStyle(quote);
            return { classes: quote.className, ornament: getComputedStyle(quote, '::before').content,
                     top: style.borderTopStyle, bottom: style.borderBottomStyle };
          })`);
      });
      assert.ok(quotes.length >= 2, `${theme}: the quote spans ${quotes.length} cards`);
      const [first, ...rest] = quotes;
      if (ornament) assert.notEqual(first!.ornament, 'none', `${theme}: the quote's ornament where it begins`);
      else assert.equal(first!.top, 'solid', `${theme}: the quote's rule where it begins`);
      for (const [index, quote] of rest.entries()) {
        assert.match(quote.classes, /split-continued/);
        assert.equal(quote.ornament, 'none', `${theme}: no ornament on card ${index + 2}`);
        assert.equal(quote.top, 'none', `${theme}: no rule at the top of card ${index + 2}`);
      }
      for (const quote of quotes.slice(0, -1)) assert.equal(quote.bottom, 'none', `${theme}: no rule at the cut`);
    }
  });

  it('scales an image taller than a card down to fit one card, keeping its proportions', async () => {
    const markdown = `# A tall picture\n\nIt is four times taller than the card.\n\n![tall](${pngDataUri(300, 2000)})\n\nText after the picture.`;
    // At scale 1, laid out and drawn: the picture's bands (22 px tall on the card) show as well as at 2.
    const layout = await splitLayout(service, { markdown, splitMode: 'autoSplit', scale: 1 });
    assertWellSplit(layout, 'tall image');
    const cards = layout.report!.cards;
    const withImage = cards.filter((card) => card.boxes.some((box) => box.kind === 'img'));
    assert.equal(withImage.length, 1, 'the image is on exactly one card');
    const image = withImage[0]!.boxes.find((box) => box.kind === 'img')!;
    const height = image.bottom - image.top;
    const width = image.right - image.left;
    assert.ok(height <= layout.report!.available && height > layout.report!.available * 0.8, `image height ${height}`);
    assert.ok(Math.abs(width / height - 300 / 2000) < 0.01, `proportions kept: ${width}×${height}`);

    const { json } = await service.generate({ markdown, splitMode: 'autoSplit', scale: 1 });
    const pngs = await images(json, 440, 586);
    const cardIndex = cards.indexOf(withImage[0]!);
    // Its first (blue) and last (red) bands are both on that card: the whole picture is there.
    const x = Math.round((image.left + image.right) / 2);
    assert.deepEqual(pixel(pngs[cardIndex]!, x, Math.round(image.top) + 3), [30, 120, 200]);
    assert.deepEqual(pixel(pngs[cardIndex]!, x, Math.round(image.bottom) - 3), [220, 60, 60]);
  });

  it('scales any other unbreakable block taller than a card down to fit one card', async () => {
    const columns =
      '<div style="display:flex;gap:8px"><div style="flex:1;height:1400px;background:#3a7">left column</div>' +
      '<div style="flex:1">right column</div></div>';
    const layout = await splitLayout(service, { markdown: `# Columns\n\nBefore.\n\n${columns}\n\nAfter.`, splitMode: 'autoSplit' });
    assertWellSplit(layout, 'tall block');
    const holding = layout.report!.cards.filter((card) => /left column/.test(card.text));
    assert.equal(holding.length, 1);
    assert.match(holding[0]!.text, /right column/);
    assert.match(holding[0]!.html, /transform: scale\(0\.\d+\)/);
  });

  it('ignores overHiddenMode: every card fits by construction', async () => {
    const markdown = fixture('mixed');
    // At scale 1: the same cards are the same images at every scale, in a quarter of the pixels.
    const plain = await service.generate({ markdown, splitMode: 'autoSplit', scale: 1 });
    const hidden = await service.generate({ markdown, splitMode: 'autoSplit', overHiddenMode: true, scale: 1 });
    assert.equal(hidden.json.images.length, plain.json.images.length);
    const [first] = await images(plain.json, 440, 586);
    const [firstHidden] = await images(hidden.json, 440, 586);
    assert.equal(differingFraction(first!, firstHidden!), 0);
  });

  it('honours width, height and scale on every card', async () => {
    const { status, json } = await service.generate({ markdown: fixture('mixed'), splitMode: 'autoSplit', width: 600, height: 400, scale: 1 });
    assert.equal(status, 200);
    assert.ok(json.images.length > 1);
    await images(json, 600, 400);
  });

  it('answers 400 with the number of cards needed when the content needs more than 50', async () => {
    const { status, json } = await service.generate({ markdown: fixture('long-prose'), splitMode: 'autoSplit', width: 300, height: 240 });
    assert.equal(status, 400);
    assert.equal(json.error, 'invalid_request');
    const needed = Number(/needs (\d+) cards/.exec(json.message)?.[1]);
    assert.ok(needed > 50, json.message);
    assert.match(json.message, /at most 50/);
  });
  it('never gives the closing hashtag line a card of its own: the lines before it come along', async () => {
    // A creator's note whose tag line fell alone onto the last 200×200 card in these themes.
    const note = ['# 五个习惯让你更高效', '', '每天早上花五分钟写下今天最重要的三件事。', '', '## 习惯一：早起', '', '早起不是目的，而是给自己留出安静的时间。', '', '## 习惯二：阅读', '', '- 每天读二十页', '- 做读书笔记', '', '#效率 #成长'].join('\n');
    for (const theme of ['minimal', 'notebook', 'darktech', 'warm']) {
      const { images } = await service.app.cards.render(checkRequest({ markdown: note, theme, width: 200, height: 200, splitMode: 'autoSplit' }).request, AbortSignal.timeout(60_000));
      const last = images.at(-1)!.alt;
      assert.match(last, /#效率/, `${theme}: the tags close the last card`);
      assert.match(last.replace(/#\S+/g, ''), /\p{L}/u, `${theme}: the last card holds only the tags: ${JSON.stringify(last)}`);
    }
  });
});
