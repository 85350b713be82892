// The cost of one card, pieces s … c-1 of a section: what the search for the best breaks
// (optimal-breaks.ts) adds up over the cards of a section, in px of a card's content height.
//
// - Empty room: `emptinessWeight` × the card's height × the square of the fraction left empty. The
//   square makes two cards a sixth empty cheaper than one a third empty and one full, so the
//   empty room is spread rather than left in one nearly empty card; the weight makes a card a third
//   empty cost about a card's height, the price of the soft break rules (break-rules.ts), so those
//   are paid rather than leave a third of a card empty. The last card of a section is free: it
//   holds what is left.
// - The penalty of the break that ends the card (break-rules.ts, code-wraps.ts).
// - What no card may be: a single line of text, only hashtags, or only a caption. Each costs
//   `never`.
// - A card (but the last of its section) less than `underfilled` full when more of the section would
//   fit on it without ending it in a heading, label or introduction: ten cards' height, more than
//   any soft rule or empty room can cost, less than `never`. So it happens only where the content
//   that could have moved up would leave a heading at a card's foot or strand a line or the
//   hashtags on a card of their own.
// - A card that ends inside a list, paragraph, quote, table or code block when the rest of that
//   block would fit on it too (and may end it): two cards' height. A reader sees the block go on
//   to the next card under room it could have taken, as after a list of links cut two items short.
//   Without it, the square of the empty room could prefer two cards two-thirds and nine-tenths
//   full to a full one and one three-quarters full; at half a card's height, spreading the room
//   over the cards after still outweighed it (change-case's method table, tables.test), and at
//   one card's height it still did at 200×200, where a card holds five or six lines (a paragraph's
//   last two lines moved on to fill the next card: 22 layouts of `npm run corpus -- --smallest`).
// - A card whose last diagram, image or table is scaled down to the room left (fit-to-room.ts) pays
//   twice the fraction it gives up, so content is scaled only to save a good deal of empty room.
// - A card that fits only with the margins between its blocks squeezed (squeeze.ts) pays
//   `squeezePrice`: a card's height, half a block cut short and more than the room one more line
//   saves on a card more than half full, far less than any rule. So margins give way to keep a
//   rule or to spare a card left half empty, not to hold a line more.
import { blockEnds, keepsWithNext, never, underfilled, type BreakCosts } from './break-rules.js';
import { scaleToGiveBack, tailsOf, type ScaledTail, type Tail } from './fit-to-room.js';
import { isCaptionLine, isHashtagLine, isTextLine, isTrailingTagLine, visualLines } from './piece-kinds.js';
import type { Piece } from './pieces.js';
import type { Section } from './sections.js';
import type { SqueezeRoom } from './squeeze.js';

/** One way to end a card that begins at a given piece. */
export interface CardOption {
  /** The card holds the pieces before this one. */
  end: number;
  cost: number;
  /** The card's last content, scaled down to the room left. */
  scaled?: ScaledTail;
  /** The px its margins may give back (squeeze.ts), when it fits only squeezed. */
  squeeze?: number;
}

const emptinessWeight = 10;

const underfilledPrice = 10;

/** The price of ending a card inside a block whose rest fits on it, per px of a card's content height. */
const needlessSplitPrice = 2;

/**
 * A card holding one line of text and the hashtags that wrapped under it (a note's closing line):
 * worth shrinking a chart above it for, but less bad than an introduction left at the foot of the
 * card before its chart (break-rules.ts, a quarter of `never`).
 */
const closingLinePrice = never / 8;

/** The price of a card that fits only with its margins squeezed, per px of a card's content height. */
const squeezePrice = 1;

/** How far past a card's height content may reach when its tail is scaled down to fit. */
const scaledReach = 1.25;

export class CardCosts {
  private readonly tails: (Tail | undefined)[];
  /** Pieces that are one line of text: a card of one of these alone is a card of a single line. */
  private readonly singleLines: boolean[];
  private readonly hashtags: boolean[];
  /** Last lines of a paragraph holding only the hashtags that wrapped onto them. */
  private readonly trailingTags: boolean[];
  private readonly captions: boolean[];
  private readonly blockEnds: (number | undefined)[];
  /** Headings, labels and introductions: pieces that go on with what follows them. */
  private readonly leads: boolean[];
  private readonly penalties: number[] = [];

  constructor(
    private readonly pieces: Piece[],
    private readonly costs: BreakCosts,
    private readonly available: number,
    /** The penalty of candidate c, including rules only applied to candidates actually weighed. */
    private readonly penaltyOf: (c: number) => number,
    private readonly squeezeRoom: SqueezeRoom,
  ) {
    this.tails = tailsOf(pieces);
    this.singleLines = pieces.map((piece) => isTextLine(piece) && visualLines(piece) === 1);
    this.hashtags = pieces.map(isHashtagLine);
    this.trailingTags = pieces.map(isTrailingTagLine);
    this.captions = pieces.map((_, i) => isCaptionLine(pieces, i));
    this.blockEnds = blockEnds(pieces);
    this.leads = pieces.map(keepsWithNext);
  }

  /**
   * Whether a card of pieces s … end-1 may reach past the card's foot, its last piece clipped there
   * (README.md, "Split modes"): when that piece is its only one, or is taller than a card by itself
   * and only headings, labels or introductions come before it. Those go along with it rather than
   * be left at the foot of the card before (a code block's label above a source line too long for
   * any card).
   */
  mayOverflow(s: number, end: number): boolean {
    if (end === s + 1) return true;
    const last = this.pieces[end - 1]!;
    if (last.bottom - last.top <= this.available + 0.5) return false;
    for (let i = s; i < end - 1; i++) if (!this.leads[i]) return false;
    return true;
  }

  /** Every candidate is weighed as the end of several cards: its penalty is worked out once. */
  private penaltyAt(c: number): number {
    this.penalties[c] ??= this.penaltyOf(c);
    return this.penalties[c];
  }

  /**
   * Height of a card holding pieces s … c-1 of `section`: their extent, plus the frames of the
   * elements cut at either end.
   */
  heightOf(section: Section, s: number, c: number): number {
    const { pieces, costs } = this;
    return pieces[c - 1]!.bottom - pieces[s]!.top + (s > section.from ? costs.openCost[s]! : 0) + (c < section.to ? costs.closeCost[c]! : 0);
  }

  /**
   * Every way to end a card that begins at piece `s` (not a rule) and ends no later than candidate
   * `last`, with its cost. The card holds at least one piece, even one too tall for it, and takes
   * the headings and labels before such a piece along (mayOverflow).
   */
  options(section: Section, s: number, last: number): CardOption[] {
    const { pieces, available } = this;
    const fitting: { end: number; height: number; scaled?: ScaledTail; squeeze?: number }[] = [];
    // The latest end that fits and leaves no heading, label or introduction at the card's foot.
    let fullest = s;
    for (let c = s + 1; c <= last; c++) {
      if (c > s + 1 && pieces[c - 1]!.bottom - pieces[s]!.top > available * scaledReach && !this.mayOverflow(s, c)) break;
      // A rule at a break is dropped, not drawn at the foot or head of a card.
      if (c < section.to && pieces[c - 1]!.rule) continue;
      let height = this.heightOf(section, s, c);
      let scaled: ScaledTail | undefined;
      let squeeze: number | undefined;
      if (height > available + 0.5) {
        const tail = this.tails[c - 1];
        const scale = tail && tail.first >= s ? scaleToGiveBack(tail, height - available) : undefined;
        const room = this.squeezeRoom.of(s, c);
        if (scale !== undefined) scaled = { tail: tail!, scale };
        else if (height - room <= available + 0.5) squeeze = room;
        else if (!this.mayOverflow(s, c)) continue;
        height = available;
      }
      fitting.push({ end: c, height, scaled, squeeze });
      if (c === section.to || !this.costs.keep[c]) fullest = c;
    }
    // The ends a card from s may have without scaling anything down: where a block cut short could end instead.
    const wholeEnds = new Set(fitting.filter(({ end, scaled }) => !scaled && (end === section.to || !this.costs.keep[end])).map(({ end }) => end));
    let onlyHashtags = true;
    let onlyCaption = true;
    // A line and only the hashtags under it: a closing line and its tags.
    let tagsAfterFirst = true;
    let next = s;
    return fitting.map(({ end, height, scaled, squeeze }) => {
      for (; next < end; next++) {
        onlyHashtags &&= this.hashtags[next]!;
        onlyCaption &&= this.captions[next]!;
        tagsAfterFirst &&= next === s || this.hashtags[next]! || this.trailingTags[next]!;
      }
      const fill = height / available;
      let cost = end === section.to ? 0 : emptinessWeight * available * (1 - fill) ** 2 + this.penaltyAt(end);
      if ((end === s + 1 && this.singleLines[s]) || onlyHashtags || onlyCaption) cost += never * available;
      else if (this.singleLines[s] && tagsAfterFirst) cost += closingLinePrice * available;
      if (end < fullest && fill < underfilled) cost += underfilledPrice * available;
      const blockEnd = this.blockEnds[end];
      if (end < section.to && blockEnd !== undefined && wholeEnds.has(Math.min(blockEnd, section.to))) cost += needlessSplitPrice * available;
      if (scaled) cost += 2 * (1 - scaled.scale) * available;
      if (squeeze !== undefined) cost += squeezePrice * available;
      return { end, cost, scaled, squeeze };
    });
  }
}
