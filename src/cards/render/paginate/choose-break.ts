// Choosing where a card ends. From the card's first piece, every candidate break whose content
// fits is weighed by the room it leaves empty plus its penalty (break-rules.ts, code-wraps.ts); the
// cheapest wins, the latest among equals. The end of a section costs nothing: a card that holds
// the rest of it is always best.
//
// One rule overrides the weighing: a card is not left more than a third empty when more of the
// document would fit on it, unless the only fuller cards would end in a heading or label (or leave
// a heading over a single line). Penalties of the softer rules (lonely lines, wrapped code lines,
// an image apart from its introduction) are then paid rather than wasting a third of a card.
import type { BreakCosts } from './break-rules.js';
import type { Piece } from './pieces.js';
import type { Section } from './sections.js';

export class BreakChooser {
  constructor(
    private readonly pieces: Piece[],
    private readonly costs: BreakCosts,
    private readonly available: number,
    /** The penalty of candidate c, including rules only applied to candidates actually weighed. */
    private readonly penaltyAt: (c: number) => number,
  ) {}

  /**
   * Height of a card holding pieces s … c-1 of `section`: their extent, plus the frames of the
   * elements cut at either end.
   */
  heightOf(section: Section, s: number, c: number): number {
    const { pieces, costs } = this;
    return pieces[c - 1]!.bottom - pieces[s]!.top + (s > section.from ? costs.openCost[s]! : 0) + (c < section.to ? costs.closeCost[c]! : 0);
  }

  /** The best break after piece `s`, not later than candidate `last`; at least one piece per card. */
  choose(section: Section, s: number, last: number): number {
    const { pieces, available } = this;
    const filled = available * (2 / 3);
    let best = -1;
    let bestScore = Infinity;
    // The best of the candidates that fill at least two thirds of the card and keep headings with their text.
    let full = -1;
    let fullScore = Infinity;
    for (let c = s + 1; c <= last; c++) {
      if (pieces[c - 1]!.bottom - pieces[s]!.top > available + 0.5) break;
      // A rule at a break is dropped, not drawn at the foot or head of a card.
      if (c < section.to && pieces[c - 1]!.rule) continue;
      const height = this.heightOf(section, s, c);
      if (height > available + 0.5) continue;
      const score = c === section.to ? 0 : available - height + this.penaltyAt(c);
      if (score <= bestScore) {
        best = c;
        bestScore = score;
      }
      if ((c === section.to || !this.costs.keep[c]) && height >= filled && score <= fullScore) {
        full = c;
        fullScore = score;
      }
    }
    if (best > s && best < section.to && this.heightOf(section, s, best) < filled && full > best) return full;
    return best > s ? best : s + 1;
  }
}
