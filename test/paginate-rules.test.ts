// The break rules of autoSplit on small documents of known geometry, in one real Chromium page:
// every line, list item, code line and table row is exactly 20 px tall and a card holds exactly
// 200 px of content (ten lines), so where each card must begin can be worked out by hand. The page
// runs the service's pagination modules with the report of test/helpers/pagination-report.ts, with
// a plain card instead of a theme, and each case checks where the cards begin.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Browser, Page } from 'playwright-core';
import { reportedPaginationCall, type ReportedPagination } from './helpers/pagination-report.js';
import { launchBrowser } from './helpers/browser.js';

/** Content height of a card, in px, and the height of every line. */
const cardContent = 200;
const line = 20;

const pageCss = `
  body { margin: 0; }
  .card { width: 320px; display: flex; flex-direction: column; background: #fff; }
  .card-content { flex: 1; min-height: 0; padding: 0 10px; }
  .card-content-inner { font: 16px/${line}px monospace; }
  .card-content-inner * { margin: 0; padding: 0; border: 0; font: inherit; }
  .card-content-inner blockquote { padding: 10px 0; }
  .card-content-inner ul, .card-content-inner ol { padding-left: 24px; }
  .card-content-inner pre { white-space: pre-wrap; }
  .card-content-inner pre .line { display: inline-block; }
  .card-content-inner .code-header { display: flex; justify-content: space-between; }
  .card-content-inner img { vertical-align: top; width: 100px; }
  .card-content-inner table { border-collapse: collapse; }
  .card-content-inner td, .card-content-inner th { height: ${line}px; }
  .footer { height: 20px; }
`;

/** An empty card: exactly `cardContent` px of content when `fixed`, else growing with its content. */
const card = (fixed: boolean) =>
  `<div class="card" style="height:${fixed ? `${cardContent + 20}px` : 'auto'}"><div class="card-content"><div class="card-content-inner"></div></div><div class="footer"><span class="page"></span></div></div>`;

/** A paragraph holding only a picture `height` px tall. */
const picture = (id: string, height: number) =>
  `<p id="${id}"><img style="height:${height}px" src="data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' width='100' height='100'/>"></p>`;

/** A code block as the Markdown renderer makes it: a label with window dots and language, then the code. */
const codeBlock = (lines: number) =>
  `<pre id="code" class="code-block"><div class="code-header"><span class="code-dots">● ● ●</span><span class="code-lang">Python</span></div><code>${Array.from({ length: lines }, (_, i) => `code${i}`).join('\n')}</code></pre>`;

/** A diagram as the Markdown renderer makes it: a figure holding a picture `height` px tall. */
const diagram = (id: string, height: number) =>
  `<figure id="${id}" class="diagram"><img style="height:${height}px" src="data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' width='100' height='100'/>"></figure>`;

/** A list of `lines.length` items, item k `lines[k]` lines long (ids `i0`, `i1`, …). */
const list = (tag: 'ul' | 'ol', lines: number[]) =>
  `<${tag} id="list">${lines.map((count, k) => `<li id="i${k}" data-index="${k + 1}">${Array.from({ length: count }, (_, j) => `item${k}.${j}`).join('<br>')}</li>`).join('')}</${tag}>`;

/** The height of every picture drawn on a card, in px. */
const pictureHeights = (report: ReportedPagination['report'], index: number) =>
  report.cards[index]!.boxes.filter((box) => box.kind === 'img').map((box) => Math.round(box.bottom - box.top));

/** A paragraph of `count` one-line lines, `id0` … `id{count-1}`. */
const paragraph = (id: string, count: number) => `<p id="${id}">${Array.from({ length: count }, (_, i) => `${id}${i}`).join('<br>')}</p>`;

describe('autoSplit break rules', () => {
  let browser: Browser;
  let page: Page;
  before(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setContent(`<style>${pageCss}</style><div id="cards"></div>`);
  });
  after(async () => browser.close());

  async function paginate(contentHtml: string, splitMode: 'autoSplit' | 'hrSplit' = 'autoSplit'): Promise<ReportedPagination> {
    const expression = await reportedPaginationCall({
      cardTemplate: card(true),
      measureTemplate: card(false),
      contentHtml,
      splitMode,
      clipSections: false,
      maxCards: 50,
    });
    return page.evaluate(expression) as Promise<ReportedPagination>;
  }

  /** Where each card begins, as the report names it (`p#a line 4`, `h2#h`, `table#t row 9`). */
  async function starts(contentHtml: string, splitMode: 'autoSplit' | 'hrSplit' = 'autoSplit'): Promise<string[]> {
    const result = await paginate(contentHtml, splitMode);
    assert.equal(result.report!.available, cardContent, 'the fixture card holds 200 px of content');
    return result.report!.cards.map((c) => c.startsAt);
  }

  it('fills each card with ten lines of a long paragraph', async () => {
    assert.deepEqual(await starts(paragraph('a', 25)), ['start', 'p#a line 10', 'p#a line 20']);
  });

  it('takes a closed <details> as its summary alone, and goes on through an open one like any block', async () => {
    // mermaid's README folds its table of contents: read as the lines it hides (which the page
    // lays out when asked for their boxes), it was spread over cards that showed only "Details".
    const folded = (open: boolean) => `${paragraph('a', 3)}<details id="d"${open ? ' open' : ''}><summary>More</summary>${list('ul', Array(30).fill(1))}</details>${paragraph('b', 3)}`;
    assert.deepEqual(await starts(folded(false)), ['start']);
    assert.ok((await starts(folded(true))).length >= 4, 'open, its 30 items go on over the cards');
  });

  it('leaves no single last line of a paragraph alone at the head of a card (widow)', async () => {
    // Ten lines would fit, but the eleventh would then stand alone: the break moves up one line.
    assert.deepEqual(await starts(paragraph('a', 11)), ['start', 'p#a line 9']);
  });

  it('ends the first card with a long title alone rather than leave its first article\'s first line under it', async () => {
    // A title of eight lines, the first article's heading and four lines: the title, the heading and
    // two lines are eleven, so either the article's first line stands alone under the title or the
    // title makes a card of its own, as a cover (the corpus's declarations at 200×200).
    const title = `<h1 id="t">${Array.from({ length: 8 }, (_, k) => `title${k}`).join('<br>')}</h1>`;
    assert.deepEqual(await starts(`${title}<h2 id="h">Article 1</h2>${paragraph('b', 4)}`), ['start', 'h2#h']);
    // With a title of seven lines the three fit together, and the break goes inside the text.
    const shorter = `<h1 id="t">${Array.from({ length: 7 }, (_, k) => `title${k}`).join('<br>')}</h1>`;
    assert.deepEqual(await starts(`${shorter}<h2 id="h">Article 1</h2>${paragraph('b', 4)}`), ['start', 'p#b line 2']);
    // But with a text of three lines, two of which fit under them, its last would stand alone at
    // the head of the next card: the title, filling most of its card, is a cover instead.
    assert.deepEqual(await starts(`${shorter}<h2 id="h">Article 1</h2>${paragraph('b', 3)}`), ['start', 'h2#h']);
    // A title of one line alone would be a card of a single line (the Korean declaration at
    // 200×200 in minimal): it keeps the article's first line under it instead.
    const tallHeading = `<h2 id="h">${Array.from({ length: 8 }, (_, k) => `article${k}`).join('<br>')}</h2>`;
    assert.deepEqual(await starts(`<h1 id="t">Title</h1>${tallHeading}${paragraph('b', 4)}`), ['start', 'p#b line 1']);
  });

  it('leaves no single first line of a paragraph alone at the foot of a card (orphan)', async () => {
    // Nine lines of a, then room for one line of b: b starts on the next card instead.
    assert.deepEqual(await starts(paragraph('a', 9) + paragraph('b', 5)), ['start', 'p#b']);
  });

  it('moves a heading and its three-line paragraph on whole rather than leave the last line alone, though that leaves a third of the card empty', async () => {
    // A 125 px picture, then a heading over three lines: two of them would fit under the picture.
    assert.deepEqual(await starts(`${picture('pic', 125)}<h2 id="h">Heading</h2>${paragraph('b', 3)}${paragraph('c', 4)}`), ['start', 'h2#h']);
  });

  it('moves a one-line list item on with the next rather than leave it alone at the foot of a card, though that leaves a third of the card empty', async () => {
    // A 125 px picture, then a heading over a list whose first item, of one line, would fit under the picture.
    assert.deepEqual(await starts(`${picture('pic', 125)}<h2 id="h">Heading</h2>${list('ul', [1, 3, 3])}`), ['start', 'h2#h']);
  });

  it('never ends a card with a heading', async () => {
    // Nine lines and the heading would fill the card exactly; the heading goes with its text.
    assert.deepEqual(await starts(`${paragraph('a', 9)}<h2 id="h">Heading</h2>${paragraph('b', 5)}`), ['start', 'h2#h']);
  });

  it('ends a card with a heading too tall to share one with two lines of its text, rather than split a two-line paragraph', async () => {
    // A nine-line heading (a title and its rows of badges on a 200×200 card), then a two-line
    // paragraph: kept with the heading, one line would go along and one stay behind.
    const heading = `<h1 id="h">${Array.from({ length: 9 }, (_, k) => `title${k}`).join('<br>')}</h1>`;
    assert.deepEqual(await starts(`${heading}${paragraph('b', 2)}${paragraph('c', 3)}`), ['start', 'p#b']);
  });

  it('does not leave a heading with only the first line of its paragraph', async () => {
    assert.deepEqual(await starts(`${paragraph('a', 8)}<h2 id="h">Heading</h2>${paragraph('b', 5)}`), ['start', 'h2#h']);
  });

  it('keeps a heading with more than the first line of the code block under it', async () => {
    const code = Array.from({ length: 5 }, (_, i) => `code${i}`).join('\n');
    assert.deepEqual(await starts(`${paragraph('a', 8)}<h2 id="h">Heading</h2><pre id="code">${code}</pre>`), ['start', 'h2#h']);
  });

  it('breaks a list between items and goes on with its numbers', async () => {
    const result = await paginate(list('ol', Array(14).fill(1)));
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'li#i10'],
    );
    const [opening] = /<ol[^>]*>/.exec(result.report!.cards[1]!.html)!;
    assert.match(opening, /start="11"/);
    assert.match(opening, /class="split-continued"/);
  });

  it('breaks a code block between lines, numbering the continued part from its first line', async () => {
    const code = Array.from({ length: 25 }, (_, i) => `code${i}`).join('\n');
    const result = await paginate(`<pre id="code">${code}</pre>`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'pre#code line 10', 'pre#code line 20'],
    );
    assert.match(result.report!.cards[1]!.html, /--split-first-line: 11/);
    assert.match(result.report!.cards[2]!.html, /--split-first-line: 21/);
  });

  it('breaks code between source lines rather than inside a wrapped one', async () => {
    // Line 9 is one source line long enough to wrap over two or more lines of the card: a break
    // after its first part is avoided by starting the next card with the whole source line.
    const lines = Array.from({ length: 14 }, (_, i) => (i === 9 ? 'wrapped '.repeat(10).trim() : `code${i}`));
    const result = await paginate(`<pre id="code">${lines.join('\n')}</pre>`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'pre#code line 9'],
    );
    assert.match(result.report!.cards[1]!.text, /^wrapped/);
  });

  it('breaks a table between rows and repeats its header row', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `<tr><td>row ${i}</td></tr>`).join('');
    const result = await paginate(`<table id="t"><thead><tr><th>Header</th></tr></thead><tbody>${rows}</tbody></table>`);
    // The header row takes a line on every card: nine rows fit with it.
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'table#t row 9', 'table#t row 18', 'table#t row 27'],
    );
    for (const c of result.report!.cards.slice(1)) assert.match(c.html, /<thead data-split-repeat="">/);
  });

  it('breaks a quote between its lines, drawing its padding again on both cards', async () => {
    // The quote's 10 px top and bottom padding is drawn at the cut on both sides: card one holds
    // its top padding, 7 lines of q1, 2 of q2 and its bottom padding (200 px).
    const result = await paginate(`<blockquote id="quote">${paragraph('q1', 7)}${paragraph('q2', 7)}</blockquote>`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'p#q2 line 2'],
    );
    assert.match(result.report!.cards[0]!.html, /<blockquote id="quote" class="split-continues">/);
    assert.match(result.report!.cards[1]!.html, /<blockquote id="quote" class="split-continued">/);
  });

  it('leaves no code frame with only its label at the foot of a card', async () => {
    // Eight lines, then the code block's label: a break after the label would leave an empty frame.
    assert.deepEqual(await starts(paragraph('a', 8) + codeBlock(5)), ['start', 'div.code-header']);
  });

  it('leaves no comment line at the foot of a card, cut from the code it introduces', async () => {
    // biome's Japanese README: "# format、lint…を実行" ended one card and its command began the next.
    const lines = ['c0', 'c1', 'c2', 'c3', 'c4', '# install it', 'npm install', 'c7', 'c8', 'c9', 'c10', 'c11'];
    const code = (text: string[]) =>
      `<pre id="code" class="code-block"><div class="code-header"><span class="code-dots">● ● ●</span><span class="code-lang">Shell</span></div><code>${text.map((line) => `<span class="line">${line}</span>`).join('\n')}</code></pre>`;
    const cardTexts = async (text: string[]) => (await paginate(paragraph('a', 3) + code(text))).report!.cards.map((card) => card.text.trim());
    // Three lines, the label and six lines of code fill the card: it ends after c4, not after the comment.
    const held = await cardTexts(lines);
    assert.equal(held.length, 2);
    assert.ok(held[0]!.endsWith('c4') && held[1]!.startsWith('# install it'), JSON.stringify(held));
    // A comment followed by another comment is not held.
    const notHeld = await cardTexts(lines.map((line) => (line === 'npm install' ? '# more' : line)));
    assert.ok(notHeld[0]!.endsWith('# install it') && notHeld[1]!.startsWith('# more'), JSON.stringify(notHeld));
  });

  it('counts a wrapped source line of code as the lines it is drawn on, not as one line', async () => {
    // A card of ten lines, then a two-line heading over a code block of two source lines, each
    // drawn (as Shiki draws a line: one inline block) over four lines of the card, then an
    // introduction and a 190 px picture. Heading, label and code need eleven lines: the block is
    // split between its source lines, and the second goes on alone, four lines, before the
    // introduction and its picture. Before, each source line counted as one line: the second alone
    // made a card of one line and the split a widow, so the introduction was left at the foot of
    // its card instead (and in change-case's README at 200×200, a heading over an empty frame).
    const long = (word: string) => `<span class="line">${`${word} `.repeat(22).trim()}</span>`;
    const code = `<pre id="code" class="code-block"><div class="code-header"><span class="code-dots">● ● ●</span><span class="code-lang">Python</span></div><code>${long('first')}\n${long('second')}</code></pre>`;
    const result = await paginate(`${paragraph('a', 10)}<h2 id="h">Usage<br>notes</h2>${code}<p id="intro">Functions:</p>${picture('pic', 190)}`);
    const cards = result.report!.cards;
    assert.deepEqual(
      cards.map((c) => c.startsAt),
      ['start', 'h2#h', 'pre#code line 1', 'p#intro'],
    );
    assert.match(cards[1]!.text, /Python\s*first/, 'the label stands over the first source line');
  });

  it('keeps a heading and a label with the first lines of a source line too long for any card', async () => {
    // Six lines, then a heading over a code block whose first source line wraps over twelve lines
    // (taller than a card), then a short line. Once, heading and label stayed at the foot of the
    // first card above an empty frame; then the long line went on whole with them, clipped at the
    // card's foot. It is now continued over the cards like the lines of a paragraph.
    const tooLong = `<span class="line">${'word '.repeat(66).trim()}</span>`;
    const code = `<pre id="code" class="code-block"><div class="code-header"><span class="code-dots">● ● ●</span><span class="code-lang">Python</span></div><code>${tooLong}\n<span class="line">short</span></code></pre>`;
    const result = await paginate(`${paragraph('a', 6)}<h2 id="h">Usage</h2>${code}`);
    const cards = result.report!.cards;
    assert.deepEqual(
      cards.map((c) => c.startsAt),
      ['start', 'pre#code line 2'],
    );
    assert.match(cards[0]!.text, /Usage\s*● ● ●\s*Python\s*word/, 'heading, label and the long line share a card');
    assert.match(cards.at(-1)!.text, /short/);
  });

  it("leaves no alert frame with only its title at the foot of a card", async () => {
    // Nine lines, then a GitHub alert (`> [!TIP]`): its title alone would fill the card.
    const alert = `<div id="alert" class="markdown-alert markdown-alert-tip"><p class="markdown-alert-title">TIP</p>${paragraph('b', 3)}</div>`;
    assert.deepEqual(await starts(paragraph('a', 9) + alert), ['start', 'p.markdown-alert-title']);
  });

  it('leaves no heading over a code frame with a single line in it', async () => {
    assert.deepEqual(await starts(`${paragraph('a', 7)}<h2 id="h">Heading</h2>${codeBlock(5)}`), ['start', 'h2#h']);
  });

  it('splits a grid between its rows rather than leaving a card more than a third empty', async () => {
    // Four lines, then a grid of four rows of two tiles (each tile two lines): three rows still fit.
    const tiles = Array.from({ length: 8 }, (_, i) => `<li>tile ${i}<br>more</li>`).join('');
    const result = await paginate(`${paragraph('a', 4)}<ul id="tiles" style="display:grid;grid-template-columns:1fr 1fr">${tiles}</ul>`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'ul#tiles grid row 3'],
    );
    assert.match(result.report!.cards[1]!.html, /<ul id="tiles"[^>]*class="split-continued"[^>]*>\s*<li>tile 6/);
  });

  it('lays a grid list out in one column when one of its tiles is taller than a card, never shrunk', async () => {
    // Two tiles side by side, the second twelve lines tall: its row fits no card. In one column the
    // list breaks between the lines of that tile, each card's text at its own size.
    const tall = Array.from({ length: 12 }, (_, i) => `long${i}`).join('<br>');
    const result = await paginate(`${paragraph('a', 2)}<ul id="tiles" style="display:grid;grid-template-columns:1fr 1fr;row-gap:20px"><li>short</li><li id="tall">${tall}</li></ul>`);
    const cards = result.report!.cards;
    assert.deepEqual(cards.map((c) => c.startsAt), ['start', 'li#tall line 6']);
    for (const card of cards) assert.doesNotMatch(card.html, /transform: scale/, 'nothing scaled down');
    assert.match(cards[0]!.html, /<li style="margin-bottom: 20px;">short<\/li>/, "the grid's gap between the tiles");
  });

  it('ends a card with a two-line introduction whole when a heading, it and its code cannot share a card, rather than cut it in half', async () => {
    // A line, a seven-line heading and a two-line introduction fill the card; with the code's label
    // they are more than a card. Cut in half, the sentence would leave one line on each card; the
    // heading alone at the foot would be worse still.
    const heading = `<h2 id="h">${Array.from({ length: 7 }, (_, i) => `title${i}`).join('<br>')}</h2>`;
    const intro = '<p id="intro">Create a folder and make it<br>your working directory:</p>';
    assert.deepEqual(await starts(paragraph('a', 1) + heading + intro + codeBlock(6)), ['start', 'div.code-header']);
  });

  it('ends a card with an introduction whole when no card holds it with two lines of its code, rather than leave its last line with the code', async () => {
    // A three-line introduction, a code label seven lines tall (as a code frame's header and padding
    // are at 200×200) and two lines of code: twelve lines, more than a card. Its last line alone
    // with the code would be a widow; the introduction ends the card whole instead.
    const intro = '<p id="intro">In a TypeScript project,<br>you may want to add<br>declarations for Node.js:</p>';
    const code = codeBlock(6).replace('<div class="code-header">', `<div class="code-header" style="height:${7 * line}px">`);
    assert.deepEqual(await starts(paragraph('a', 1) + intro + code), ['start', 'div.code-header', 'pre#code line 3']);
  });

  it('goes on with a source line of code that wraps over more lines than a card holds, never clipping its end', async () => {
    // Each source line is one inline block (themes/_base.css); this one wraps over about fourteen
    // lines of the card, more than a card holds. Its end ("last") must be drawn on a card, inside it.
    const long = Array.from({ length: 70 }, (_, i) => `w${String(i).padStart(3, '0')}`).join(' ');
    const code = `<pre id="code" class="code-block"><div class="code-header"><span>● ● ●</span><span>HTML</span></div><code><span class="line">first</span>\n<span class="line">${long} last</span>\n<span class="line">after</span></code></pre>`;
    const cards = (await paginate(paragraph('a', 2) + code)).report!.cards;
    const text = cards.map((card) => card.text).join(' ');
    for (const word of ['w000', 'w035', 'w069', 'last', 'after']) assert.match(text, new RegExp(word), `${word} is on a card`);
    for (const [index, card] of cards.entries()) {
      const below = card.boxes.filter((box) => box.bottom > card.contentBottom + 0.5);
      assert.deepEqual(below, [], `card ${index + 1} draws nothing under its content area`);
    }
  });

  it('ends a card with a title alone rather than leave the heading under it at the foot, when the two and its text cannot share a card', async () => {
    // A nine-line title and a section heading fill a card; with two lines of the text they are more.
    const title = `<h1 id="t">${Array.from({ length: 9 }, (_, i) => `title${i}`).join('<br>')}</h1>`;
    assert.deepEqual(await starts(`${title}<h2 id="s">Article 1</h2>${paragraph('p', 4)}`), ['start', 'h2#s']);
  });

  it('keeps an image with the paragraph that introduces it when the two fit on one card', async () => {
    // Seven lines, then a two-line introduction and a 100 px picture: both go on to the next card.
    assert.deepEqual(await starts(paragraph('a', 7) + paragraph('intro', 2) + picture('pic', 100)), ['start', 'p#intro']);
  });

  it('separates an image from its introduction rather than leave a card more than a third empty', async () => {
    // Six lines (60 % of the card): moving the introduction with the picture would leave 40 % empty.
    assert.deepEqual(await starts(paragraph('a', 6) + paragraph('intro', 2) + picture('pic', 100)), ['start', 'p#pic']);
  });
  // The breaks below are chosen for the whole document: a card-by-card choice (the cheapest break
  // of each card in turn) gets each of them wrong.

  it('spreads a paragraph over two cards rather than leave the second nearly empty before a heading and picture that need a card', async () => {
    // Twelve lines, then a heading over a 180 px picture (together a whole card). Filling the first
    // card leaves two lines alone on the second; six and six fill both cards alike.
    assert.deepEqual(await starts(`${paragraph('a', 12)}<h2 id="h">Heading</h2>${picture('pic', 180)}`), ['start', 'p#a line 6', 'h2#h']);
  });

  it('cuts a diagram drawn to be cut between its bands, leaving no short first or last band alone', async () => {
    // Eight lines, then a diagram 300 px tall that may be cut at 30, 90, 150, 210 and 270 px (as
    // the diagram page marks one too tall for a card): bands of 30, 60, 60, 60, 60 and 30 px. Its
    // first band would fit under the lines, alone; it goes on with the next ones instead.
    const figure = `<figure id="d" class="diagram" data-cuts="0.1 0.3 0.5 0.7 0.9"><img style="height:300px" src="data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' width='100' height='300'/>"></figure>`;
    const result = await paginate(paragraph('a', 8) + figure);
    const cards = result.report!.cards;
    const bands = cards.map((card) => card.boxes.filter((box) => box.kind === 'img').length);
    assert.deepEqual(cards.map((c) => c.startsAt), ['start', 'div.diagram-slice', 'div.diagram-slice']);
    assert.deepEqual(bands, [0, 3, 3], 'three bands on each of the next two cards');
    // Each card shows its bands of the picture at full size, one under the other.
    const slices = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#cards .diagram-slice'), (slice) => [slice.getBoundingClientRect().height, slice.querySelector('img')!.getBoundingClientRect().height]),
    );
    assert.deepEqual(slices, [[30, 300], [60, 300], [60, 300], [60, 300], [60, 300], [30, 300]]);
  });

  it('scales a diagram down to the room left, keeping it with its heading, only while it stays legible', async () => {
    // Six lines and a heading leave 60 px for a 70 px diagram: at 86 % of its size it stays on the card.
    const result = await paginate(`${paragraph('a', 6)}<h2 id="h">Diagram</h2>${diagram('fig', 70)}${paragraph('b', 3)}`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'p#b'],
    );
    assert.match(result.report!.cards[0]!.html, /<figure id="fig"[^>]*style="zoom: 0\.8\d*;"/);
    assert.ok(pictureHeights(result.report!, 0)[0]! <= 60, 'the diagram fits the room left');
    // 60 px for a 100 px diagram would be 60 % of its size: it moves on with its heading instead.
    assert.deepEqual(await starts(`${paragraph('a', 6)}<h2 id="h">Diagram</h2>${diagram('fig', 100)}${paragraph('b', 3)}`), ['start', 'h2#h']);
  });

  it('keeps a heading with a picture as tall as a card, scaling the picture down to make room', async () => {
    // The 400 px picture is first fitted to the card (199 px); under its heading it gives up 19 px more.
    const tall = `<p id="pic"><img src="data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' width='100' height='400'/>"></p>`;
    const result = await paginate(`${paragraph('a', 3)}<h2 id="h">Tall</h2>${tall}`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'h2#h'],
    );
    assert.ok(pictureHeights(result.report!, 1)[0]! <= 180, 'the picture fits under its heading');
  });

  it('scales a picture down a little rather than leave its caption alone on a card', async () => {
    // Five lines and a 95 px picture leave no room for its one-line caption: the picture gives up 15 px.
    const result = await paginate(`${paragraph('a', 5)}${picture('pic', 95)}<p id="cap"><em>Figure 1: the picture</em></p>`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start'],
    );
    assert.ok(pictureHeights(result.report!, 0)[0]! <= 80, 'the picture fits the room left');
  });

  it("scales a cut diagram's first band down to the room under its heading and the line introducing it", async () => {
    // Three lines, then a heading and a line introducing a diagram of 12 px text drawn to be cut
    // (250 px, one cut at 175 px). Under its heading its first band needs 215 px of a 200 px card:
    // scaled to 91 % (its text stays over 10 px), it goes with them rather than leave them alone.
    const figure = `<figure id="d" class="diagram" data-cuts="0.7" data-text-px="12"><img style="height:250px" src="data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' width='100' height='250'/>"></figure>`;
    const result = await paginate(`${paragraph('a', 3)}<h2 id="h">Heading</h2><p id="intro">The steps:</p>${figure}`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'h2#h', 'div.diagram-slice'],
    );
    // The band is a window on the whole picture, drawn smaller with it.
    const [first] = pictureHeights(result.report!, 1);
    assert.ok(first! < 250 && first! >= 0.83 * 250, `the picture drawn ${first} px high in the first band`);
  });

  it("scales a chart down a little rather than leave its closing line and hashtags alone on a card", async () => {
    // A line introducing the chart, the chart (170 px), then a closing line and a line of its tags:
    // 230 px for a card of 200. The chart gives up 30 px rather than leave the last two lines alone.
    const closing = '<p id="end">That is where the hours went. <span class="hashtag">#recap</span></p>';
    const result = await paginate(`${paragraph('a', 1)}${diagram('chart', 170)}${closing}`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start'],
    );
    assert.ok(pictureHeights(result.report!, 0)[0]! <= 140, 'the chart fits the room left');
    // A paragraph of three lines after it is not a closing line: the chart is not scaled for it.
    const longer = await paginate(`${paragraph('a', 1)}${diagram('chart', 170)}${paragraph('b', 3)}`);
    assert.equal(pictureHeights(longer.report!, 0)[0], 170);
  });

  it('scales a short table down to the room left rather than split it', async () => {
    // Five lines, then a table of a header and five rows (120 px): at 83 % it fits the 100 px left.
    const rows = Array.from({ length: 5 }, (_, i) => `<tr><td>row ${i}</td></tr>`).join('');
    const result = await paginate(`${paragraph('a', 5)}<table id="t"><thead><tr><th>Header</th></tr></thead><tbody>${rows}</tbody></table>${paragraph('b', 3)}`);
    assert.deepEqual(
      result.report!.cards.map((c) => c.startsAt),
      ['start', 'p#b'],
    );
    assert.match(result.report!.cards[0]!.html, /<table id="t"[^>]*style="zoom: 0\.8\d*;"/);
  });

  it('moves a code block that fits on one card on whole rather than split it', async () => {
    // Eight lines leave room for two of its four lines.
    const code = Array.from({ length: 4 }, (_, i) => `code${i}`).join('\n');
    assert.deepEqual(await starts(`${paragraph('a', 8)}<pre id="code">${code}</pre>`), ['start', 'pre#code']);
  });

  it('never ends a card with a paragraph that introduces what follows', async () => {
    // Nine lines and the introduction fill the card exactly; it goes on with the list it introduces.
    for (const intro of ['Do this:', '请这样做：']) {
      assert.deepEqual(await starts(`${paragraph('a', 9)}<p id="intro">${intro}</p>${list('ol', [1, 1, 1])}`), ['start', 'p#intro'], intro);
    }
  });

  it('breaks a list between items rather than inside one', async () => {
    // Three items of four lines: two items and half of the third would fill the card exactly.
    assert.deepEqual(await starts(list('ul', [4, 4, 4])), ['start', 'li#i2']);
  });

  it('leaves no single one-line item of a list alone at the head of a card to spread the room', async () => {
    // Eight items fill a card to 80 %, a heading and five lines the next to 60 % (a heading and a
    // picture too tall for the rest need the third); moving the last item over would even the two
    // out, but strands it on its own above the heading (two items may move over together).
    const doc = `${list('ul', Array(8).fill(1))}<h2 id="h2">h2</h2>${paragraph('b', 5)}<h2 id="h3">h3</h2>${picture('pic', 150)}${paragraph('d', 9)}`;
    const [first, second, ...rest] = await starts(doc);
    assert.equal(first, 'start');
    assert.notEqual(second, 'li#i7');
    assert.deepEqual(rest, ['h2#h3', 'p#d']);
  });

  it('does not carry the end of a list over to the next card when it fits on this one', async () => {
    // As above: moving the last two items over would even the first two cards out (60 % and 80 %
    // full rather than 80 % and 60 %), but the reader sees the list go on under room it could have
    // taken, as under a README's list of links. The list ends on the first card.
    const doc = `${list('ul', Array(8).fill(1))}<h2 id="h2">h2</h2>${paragraph('b', 5)}<h2 id="h3">h3</h2>${picture('pic', 150)}${paragraph('d', 9)}`;
    assert.deepEqual(await starts(doc), ['start', 'h2#h2', 'h2#h3', 'p#d']);
  });

  it('leaves no single line alone on the last card of an overflowing hrSplit section', async () => {
    // Eleven one-line items, then a rule and the next section: the section's second card holds two.
    assert.deepEqual(await starts(`${list('ul', Array(11).fill(1))}<hr>${paragraph('c', 3)}`, 'hrSplit'), ['start', 'li#i9', 'start']);
  });
  it('lays out generated documents of paragraphs and diagrams to be cut: every line and band once, in order, inside its card (fast-check)', async () => {
    // A paragraph of 1-6 lines, or a diagram 60-700 px tall with up to a dozen places it may be cut.
    const block = fc.oneof(
      fc.record({ kind: fc.constant('p' as const), lines: fc.integer({ min: 1, max: 6 }) }),
      fc.record({ kind: fc.constant('figure' as const), height: fc.integer({ min: 60, max: 700 }), cuts: fc.uniqueArray(fc.integer({ min: 1, max: 99 }), { maxLength: 12 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(block, { minLength: 1, maxLength: 8 }), async (blocks) => {
        const html = blocks
          .map((b, k) =>
            b.kind === 'p'
              ? `<p>${Array.from({ length: b.lines }, (_, j) => `b${k}l${j}`).join('<br>')}</p>`
              : `<figure id="f${k}" class="diagram" data-cuts="${b.cuts.map((cut) => cut / 100).join(' ')}"><img style="height:${b.height}px" src="data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' width='100' height='${b.height}'/>"></figure>`,
          )
          .join('');
        const result = await paginate(html);
        const text = result.report!.cards.map((card) => card.text).join(' ');
        for (const [k, b] of blocks.entries()) {
          if (b.kind !== 'p') continue;
          for (let j = 0; j < b.lines; j++) assert.equal(text.split(`b${k}l${j}`).length - 1, 1, `line ${j} of paragraph ${k} is on exactly one card`);
        }
        const cards = await page.evaluate(() =>
          Array.from(document.querySelectorAll('#cards > .card'), (card) => {
            const limit = card.querySelector('.card-content')!.getBoundingClientRect().bottom;
            return Array.from(card.querySelectorAll<HTMLElement>('.diagram-slice'), (slice) => ({
              figure: slice.closest('figure')!.id,
              height: parseFloat(slice.style.height),
              // (+ 0: the first band's margin is -0.)
              offset: -parseFloat(slice.querySelector('img')!.style.marginTop) + 0,
              past: slice.getBoundingClientRect().bottom - limit,
            }));
          }),
        );
        for (const [k, b] of blocks.entries()) {
          if (b.kind !== 'figure') continue;
          const slices = cards.flat().filter((slice) => slice.figure === `f${k}`);
          if (slices.length === 0) continue;
          // Sliced: its bands, in order, each once, add up to the whole picture.
          let reach = 0;
          for (const slice of slices) {
            assert.equal(slice.offset, reach, `diagram ${k}: each band begins where the one before ended`);
            reach += slice.height;
          }
          assert.equal(reach, b.height, `diagram ${k}: its bands add up to the whole picture`);
        }
        // Every band inside its card, unless a band alone is taller than a card (scaled down then, as drawn).
        for (const slice of cards.flat()) if (slice.height <= cardContent) assert.ok(slice.past <= 1, `a band reaches ${slice.past} px past its card`);
      }),
      { numRuns: 40 },
    );
  });
});
