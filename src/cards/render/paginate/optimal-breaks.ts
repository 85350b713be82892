// Choosing the breaks of a section all together, the way a typesetter breaks pages: of every way
// to cut the section into cards, the one whose cards cost least in sum (card-cost.ts). A choice
// card by card cannot see that filling one card strands two lines on the next before a heading
// and its picture, or leaves one line alone at the end.
//
// Dynamic programming from the end of the section: the least cost of laying out everything from
// piece s on is the cheapest card that begins at s plus the least cost from where it ends. Each
// piece is weighed as the start of a card once, against the ends within one card's reach of it,
// so the work is the number of pieces times the pieces a card holds.
import type { CardCosts, CardOption } from './card-cost.js';
import type { Piece } from './pieces.js';
import type { Section } from './sections.js';

export class SectionPlan {
  /** rest[s]: the least cost of the cards from piece s (a card's first piece) to the section's end. */
  private readonly rest: number[] = [];
  /** The best card that begins at piece s, given the best cards after it. */
  private readonly choice: CardOption[] = [];

  constructor(
    private readonly pieces: Piece[],
    private readonly cards: CardCosts,
    private readonly section: Section,
  ) {
    for (let s = section.to - 1; s >= section.from; s--) {
      if (pieces[s]!.rule) continue;
      const best = this.cheapest(s, section.to);
      this.choice[s] = best.option;
      this.rest[s] = best.cost;
    }
  }

  /** Where a card that follows a break before piece i begins: a rule at a card's head is dropped. */
  startAt(i: number): number {
    while (i < this.section.to && this.pieces[i]!.rule) i++;
    return i;
  }

  /**
   * The card that begins at piece s (as startAt gives it) in the best layout of the section; or,
   * when that card turned out too tall once built, the best that ends no later than `last`.
   */
  cardFrom(s: number, last = this.section.to): CardOption {
    return last === this.section.to ? this.choice[s]! : this.cheapest(s, last).option;
  }

  private cheapest(s: number, last: number): { option: CardOption; cost: number } {
    let best: CardOption | undefined;
    let bestCost = Infinity;
    for (const option of this.cards.options(this.section, s, last)) {
      const next = this.startAt(option.end);
      const cost = option.cost + (next < this.section.to ? this.rest[next]! : 0);
      // The latest among equals: the fuller card first.
      if (cost <= bestCost) {
        best = option;
        bestCost = cost;
      }
    }
    return { option: best!, cost: bestCost };
  }
}
