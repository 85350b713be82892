// Break rules: what a break before piece i costs, on top of the room it leaves empty. Candidate i
// is the position just before piece i (1 ≤ i < pieces.length). README.md ("Split modes") states the
// rules users rely on: a heading, a label, or a paragraph that introduces what follows is never the
// last thing on a card, nor is the frame of a block without a line of its content; a paragraph
// leaves at least two lines on each side of a break (a table two rows); a list breaks between its
// items rather than inside one; a table or code block that fits on one card is not split; an image
// stays with the paragraph that introduces it and the caption under it. What a whole card may not
// be (a single line, only hashtags, only a caption) is card-cost.ts's.
//
// Penalties are in px of wasted room they are worth, against card-cost.ts's price of empty room.
// `never` is a cost no layout pays unless every layout must.
import { lineHeightOf, preformatted, px, styleOf } from './css.js';
import { endsIntroduction, isCaptionLine, isImage, visualLines } from './piece-kinds.js';
import type { Piece } from './pieces.js';

/** The price of breaking a rule stated as "never", per px of a card's content height. */
export const never = 100;

/**
 * The price of a widow or orphan (lonelyLinePenalty), per px of a card's content height: above the
 * price of any empty room and of a card less than 40% full (card-cost.ts), since lines kept
 * together cannot move up, but below `never`, so that where the rules collide (the last item of a
 * list and a card of the hashtags alone) the card-level rule wins.
 */
const lonelyPrice = never / 2;

/** The price of cutting a paragraph of two lines in two (lonelyLinePenalty), per px of a card's content height. */
const halvedSentencePrice = never * 1.5;

export interface BreakCosts {
  /**
   * Height a break before piece i adds at the head of the next card: the top padding and border of
   * every container it cuts (drawn again there), and a table's repeated header row.
   */
  openCost: number[];
  /** Height it adds at the foot of the card it ends: the bottom padding and border of those containers. */
  closeCost: number[];
  /** How undesirable the break is, in px of wasted room it is worth. */
  penalty: number[];
  /** The break would leave a heading, label or introduction last on a card (or a heading over a single line). */
  keep: boolean[];
}

/** The elements that both sides of candidate i are inside of: those a break there cuts. */
function cutElements(pieces: Piece[], i: number): Element[] {
  const a = pieces[i - 1]!.path;
  const b = pieces[i]!.path;
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return a.slice(0, n);
}

/** The frame a break before piece i must draw again: padding and borders of what it cuts. */
function frameCosts(pieces: Piece[], i: number): { open: number; close: number } {
  let open = 0;
  let close = 0;
  for (const el of cutElements(pieces, i)) {
    const cs = styleOf(el);
    open += px(cs.paddingTop) + px(cs.borderTopWidth);
    close += px(cs.paddingBottom) + px(cs.borderBottomWidth);
    if (el instanceof HTMLTableElement && el.tHead) open += el.tHead.getBoundingClientRect().height;
  }
  return { open, close };
}

/**
 * Labels the Markdown renderer draws at the top of a block, above its content: a code block's
 * window dots and language (code-blocks.ts in src/cards/markdown), a callout's title
 * (mdx-components.ts), a GitHub alert's icon and kind (`> [!TIP]`, remark-github-blockquote-alert).
 * Like a heading, a label is never left at the foot of a card without a line of what it labels:
 * that would leave an empty frame with only its decoration.
 */
const labelSelector = '.code-header, .callout-title, .markdown-alert-title';

export const isLabel = (piece: Piece): boolean => piece.el.closest(labelSelector) !== null;

/** Pieces that must not be the last thing on a card: headings, labels and the last line of an introduction. */
export const keepsWithNext = (piece: Piece): boolean => piece.heading || isLabel(piece) || endsIntroduction(piece);

/**
 * A heading (a title with a row of badges, at the smallest sizes) that no card could hold together
 * with two lines of the text under it: kept with the next, it takes one line along and leaves that
 * paragraph a single line on each side. Ending a card with it then costs less than that widow.
 * A label needs only the first line of what it labels: a code block's header that a card could
 * hold with one source line is never left over an empty frame because two would not fit.
 * An introduction counts whole, from its first line, and what it introduces from past a label
 * (a code block's header): at 200×200 a paragraph of two or three lines, the header and two lines
 * of code are more than a card, and the paragraph then ends a card whole, the code on the next,
 * rather than leave a line of it with the code or a heading alone at the foot of the card before.
 */
function tooTallToKeep(pieces: Piece[], i: number, available: number): boolean {
  const before = pieces[i - 1]!;
  let first = i - 1;
  let next = i;
  if (endsIntroduction(before)) {
    // An introduction is the last line of a paragraph (endsIntroduction): back to its first line.
    while (first > 0 && pieces[first - 1]!.run === before.run) first--;
    while (next < pieces.length - 1 && isLabel(pieces[next]!)) next++;
  }
  const after = pieces[next]!;
  if (after.kind !== 'line' || isImage(after)) return false;
  const lastKept = isLabel(before) ? after : secondLineFrom(pieces, next);
  return lastKept.bottom - pieces[first]!.top > available;
}

/** The second line of the run piece j begins (the widow rule's two lines), or piece j when it has none after it. */
function secondLineFrom(pieces: Piece[], j: number): Piece {
  const first = pieces[j]!;
  const second = pieces[j + 1];
  return first.kind === 'line' && second?.kind === 'line' && second.run === first.run ? second : first;
}

/** The price of ending a card with a heading or introduction too tall to keep with what follows, below a widow's. */
const tooTallPrice = never / 4;

/**
 * The price of ending a card with an introduction that a card could hold with what it introduces:
 * a rule stated as "never", but where the rules collide the mildest of them. The sentence is whole
 * and what it introduces begins the next card, where a heading alone at a card's foot, or a
 * sentence cut in half, is what a reader notices first.
 */
const introductionLastPrice = (never * 3) / 4;

/**
 * The price of ending a card with a heading whose next is a heading too (a section's heading over
 * its first subsection's): also "never", but cheaper than leaving the second one, which opens the
 * text, at the foot.
 */
const headingOverHeadingPrice = (never * 3) / 4;

/** A card less full than this, with more content that could have moved up onto it, is a waste (card-cost.ts). */
export const underfilled = 0.4;

/**
 * The price of ending a card with the document's title alone (the headings it opens with) over its
 * first section's heading, where the title is a cover: below a widow's. Where the title, that
 * heading and two lines of text cannot share a card (a long title at 200×200), or the title fills
 * a card enough not to look left behind, it makes a card of its own, and 第一條 begins the next
 * with its article, rather than leave the article's first or last line alone.
 */
const titleAlonePrice = never / 4;

/**
 * Whether a break before piece i leaves the document's title alone on its card (every piece before
 * it is a heading) as a cover: the title fills at least `underfilled` of a card, or no card could
 * hold the title, the headings after it and two lines of the text under them.
 */
function titleMakesCover(pieces: Piece[], i: number, available: number): boolean {
  // The first piece that is not a heading: the text, after the title and the headings over it
  // (the last piece, in a document of headings alone).
  const firstText = pieces.findIndex((piece) => !piece.heading);
  const text = firstText === -1 ? pieces.length - 1 : firstText;
  if (text < i) return false;
  const title = pieces[i - 1]!.bottom - pieces[0]!.top;
  // A title of one line alone would be a card of a single line, which no card may be.
  if (title < 1.5 * lineHeightOf(pieces[0]!.el)) return false;
  return title >= underfilled * available || secondLineFrom(pieces, text).bottom - pieces[0]!.top > available;
}

/**
 * Keep-with-next for headings, labels and introductions: never one last on a card, and not a
 * heading with only the first line of its text under it (looking past the label of a code block
 * between them).
 */
export function keepWithNextPenalty(pieces: Piece[], i: number, available: number): number {
  const before = pieces[i - 1]!;
  const after = pieces[i]!;
  if (keepsWithNext(before)) {
    if (tooTallToKeep(pieces, i, available)) return available * tooTallPrice;
    if (before.heading && after.heading) return available * (titleMakesCover(pieces, i, available) ? titleAlonePrice : headingOverHeadingPrice);
    if (before.heading) return available * never;
    return available * (isLabel(before) ? never : introductionLastPrice);
  }
  if (before.kind === 'line' && before.line === 0 && after.run === before.run) {
    let above = i - 2;
    while (above >= 0 && isLabel(pieces[above]!)) above--;
    if (pieces[above]?.heading) return available * 2;
  }
  return 0;
}

/**
 * Widows and orphans: a paragraph leaves at least two lines on each side of a break, a table two
 * rows (a stacked record taller than a card two lines of its fields), a list two items when the
 * lone one would be a single line, a diagram cut into slices two bands when the lone one is short.
 * A break that leaves a single line (or row, or one-line item) alone at the foot or head of a card
 * costs `lonelyPrice`: the lines move on together even where that leaves a third of the card empty
 * (a heading and a three-line paragraph under a tall picture), or at the smallest sizes more than
 * half of it.
 */
export function lonelyLinePenalty(pieces: Piece[], i: number, available: number): number {
  const before = pieces[i - 1]!;
  const after = pieces[i]!;
  const lonely = (count: number, index: number) => count >= 2 && (index === 1 || count - index === 1);
  if (before.kind === 'line' && after.kind === 'line' && before.run === after.run && lonely(after.run!.lines.length, after.line!)) {
    // The lines left alone (both, when the run has two): a code block's source line wrapped over
    // several lines of the card is not one line. A paragraph of two lines cut in two (a sentence
    // broken in half, each half alone) costs more than any one rule stated as "never": where a
    // heading, that sentence and the code it introduces cannot share a card, the sentence ends a
    // card whole, or goes on with the code, rather than leave "Create a folder and make it your"
    // at the foot of one card and "current working directory:" at the head of the next.
    const alone = [after.line === 1 && before, after.run!.lines.length - after.line! === 1 && after];
    const lonelyLines = alone.filter((piece) => piece && visualLines(piece) === 1).length;
    if (lonelyLines === 2) return available * halvedSentencePrice;
    if (lonelyLines === 1) return available * lonelyPrice;
  }
  if (rowsOfOneBlock(before, after) && lonely(after.rowCount!, after.row!)) return available * lonelyPrice;
  if (lonelyListItem(pieces, i)) return available * lonelyPrice;
  if (lonelySlice(pieces, i, available)) return available * lonelyPrice;
  return 0;
}

/**
 * A break inside a diagram cut into slices (slice-diagrams.ts) or folded into rows that leaves its
 * first or last band or row alone on a card when it is short: a sequence diagram's row of
 * participants at the foot of a card, a sliver of the drawing at the head of the next, a pie's
 * legend away from its pie.
 */
function lonelySlice(pieces: Piece[], i: number, available: number): boolean {
  const before = pieces[i - 1]!;
  const after = pieces[i]!;
  const figure = before.el.parentElement;
  const ofFigure = (piece: Piece | undefined) => piece?.el.matches('.diagram-slice, .diagram-row') === true && piece.el.parentElement === figure;
  if (!ofFigure(before) || !ofFigure(after)) return false;
  const short = (piece: Piece) => piece.bottom - piece.top < available / 4;
  return (!ofFigure(pieces[i - 2]) && short(before)) || (!ofFigure(pieces[i + 1]) && short(after));
}

/**
 * Two rows of one table that the widow rule holds together: rows of a line or so. A stacked table's
 * record (fit-tables.ts) is a block of lines, which may stand alone like a long list item; the
 * lines of its fields (pieces.ts) are held like rows. A row of a tile grid holds two items or
 * more, and may stand alone.
 */
function rowsOfOneBlock(before: Piece, after: Piece): boolean {
  if (before.kind === 'row' && after.kind === 'row') return before.table === after.table && !after.table!.classList.contains('table-stacked');
  const record = after.path.at(-1);
  return before.kind === 'gridRow' && after.kind === 'gridRow' && record?.tagName === 'TR' && before.path.at(-1) === record;
}

/**
 * A break between the items of a list that leaves its first or last item alone on a card, when
 * that item is a single line: the list's widow or orphan. A longer item may stand alone.
 */
function lonelyListItem(pieces: Piece[], i: number): boolean {
  const cut = cutElements(pieces, i);
  const list = cut[cut.length - 1];
  if (!list || (list.tagName !== 'UL' && list.tagName !== 'OL')) return false;
  const itemOf = (piece: Piece | undefined) => piece?.path[cut.length];
  const items = Array.from(list.children);
  const index = items.indexOf(itemOf(pieces[i])!);
  if (index === 1) return itemOf(pieces[i - 2]) !== itemOf(pieces[i - 1]);
  if (index === items.length - 1) return itemOf(pieces[i + 1]) !== itemOf(pieces[i]);
  return false;
}

/**
 * A list breaks between its items rather than inside one: a break whose innermost cut element is a
 * list item (between two lines of its text, or between its text and its sub-list) costs half a card.
 * A break between the items of a sub-list is between items. An item whose text is one line, cut
 * from its sub-list, leaves that line alone at the foot of a card, as a table of contents' entry
 * above its sub-entries on the next card: that is an orphan, at the widow rule's price.
 */
export function insideListItemPenalty(pieces: Piece[], i: number, available: number): number {
  const cut = cutElements(pieces, i);
  for (let k = cut.length - 1; k >= 0; k--) {
    const tag = cut[k]!.tagName;
    if (tag === 'LI') return itemTextAlone(pieces, i, cut[k]!) ? available * lonelyPrice : available / 2;
    if (tag === 'UL' || tag === 'OL') return 0;
  }
  return 0;
}

/** Whether a break before piece i, inside `item`, follows the item's text, a single line, with its sub-list after it. */
function itemTextAlone(pieces: Piece[], i: number, item: Element): boolean {
  const before = pieces[i - 1]!;
  const after = pieces[i]!;
  if (before.kind !== 'line' || before.run!.lines.length !== 1 || visualLines(before) !== 1) return false;
  // The item's own text (directly in it, or its first paragraph), not a later paragraph of it.
  const text = before.run!.container;
  if (text !== item && text !== item.firstElementChild) return false;
  const below = after.path.slice(after.path.indexOf(item) + 1);
  return below.some((el) => el.tagName === 'UL' || el.tagName === 'OL');
}

/** The table, stacked table's record or code block a break before piece i splits, if any. */
function splitBlock(pieces: Piece[], i: number): Element | undefined {
  const before = pieces[i - 1]!;
  const after = pieces[i]!;
  if (before.kind === 'row' && after.kind === 'row' && before.table === after.table) return after.table;
  if (rowsOfOneBlock(before, after)) return after.path.at(-1);
  if (before.kind === 'line' && after.kind === 'line' && before.run === after.run && preformatted(after.run!.container)) {
    return after.run!.container.closest('pre') ?? after.run!.container;
  }
  return undefined;
}

/**
 * A table, a stacked table's record or a code block that fits on one card is not split: a break
 * inside it costs half a card. It moves to the next card whole, or (a table) is scaled down to the
 * room left (fit-to-room.ts).
 */
export function shortBlockPenalty(pieces: Piece[], i: number, available: number): number {
  const block = splitBlock(pieces, i);
  return block && block.getBoundingClientRect().height <= available ? available / 2 : 0;
}

/**
 * An image stays with the paragraph that introduces it (the paragraph just before it) when the two
 * fit on one card together: any break inside that paragraph or between it and the image costs a
 * card's height, so the pair moves on together unless that would leave about a third of a card
 * empty (card-cost.ts).
 */
export function introducedImagePenalties(pieces: Piece[], available: number, penalty: number[]): void {
  for (let i = 1; i < pieces.length; i++) {
    const image = pieces[i]!;
    const intro = pieces[i - 1]!;
    if (!isImage(image) || intro.kind !== 'line' || intro.run === image.run || intro.run!.container.tagName !== 'P') continue;
    const first = i - 1 - intro.line!;
    if (image.bottom - pieces[first]!.top > available) continue;
    for (let c = first + 1; c <= i; c++) penalty[c] = Math.max(penalty[c]!, available);
  }
}

/** A caption stays under its picture: a break between them costs a card's height, like an introduction's. */
export function captionPenalty(pieces: Piece[], i: number, available: number): number {
  return pieces[i]!.line === 0 && isCaptionLine(pieces, i) ? available : 0;
}

/**
 * For every candidate i, where the innermost element a break there cuts (a list, a paragraph, a
 * quote, a code block) ends: the index just after its last piece. Undefined for a break between
 * top-level blocks. card-cost.ts uses it to keep a block whole when the rest of it fits on the card.
 */
export function blockEnds(pieces: Piece[]): (number | undefined)[] {
  const lastPiece = new Map<Element, number>();
  pieces.forEach((piece, i) => {
    for (const el of piece.path) lastPiece.set(el, i);
  });
  const ends: (number | undefined)[] = [];
  for (let i = 1; i < pieces.length; i++) {
    const innermost = cutElements(pieces, i).at(-1);
    ends[i] = innermost && lastPiece.get(innermost)! + 1;
  }
  return ends;
}

/** Costs of every break candidate of the document. */
export function breakCosts(pieces: Piece[], available: number): BreakCosts {
  const costs: BreakCosts = { openCost: [], closeCost: [], penalty: [], keep: [] };
  for (let i = 1; i < pieces.length; i++) {
    const { open, close } = frameCosts(pieces, i);
    costs.openCost[i] = open;
    costs.closeCost[i] = close;
    const keep = keepWithNextPenalty(pieces, i, available);
    costs.keep[i] = keep > 0;
    costs.penalty[i] = Math.max(
      keep,
      lonelyLinePenalty(pieces, i, available),
      insideListItemPenalty(pieces, i, available),
      shortBlockPenalty(pieces, i, available),
      captionPenalty(pieces, i, available),
    );
  }
  introducedImagePenalties(pieces, available, costs.penalty);
  return costs;
}
