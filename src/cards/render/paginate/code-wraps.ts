// A break rule of code blocks: break between source lines, not inside a long source line that the
// card's width wraps (README.md, "Split modes"). Whether a line of a code block begins a source
// line is only known from its DOM position (is the character before it a newline?), so this rule
// is applied lazily, to the candidates the search for breaks actually weighs (card-cost.ts).
import { preformatted } from './css.js';
import { characterBefore, type BreakPoints } from './break-points.js';
import type { Piece } from './pieces.js';

export class CodeWrapRule {
  private readonly softWraps = new Map<number, boolean>();

  constructor(
    private readonly pieces: Piece[],
    private readonly points: BreakPoints,
  ) {}

  /** The penalty of candidate i raised, when it falls inside a wrapped source line, to 2.5 lines. */
  penalty(i: number, base: number): number {
    const piece = this.pieces[i]!;
    const previous = this.pieces[i - 1]!;
    if (piece.kind !== 'line' || piece.line === 0 || previous.run !== piece.run || !preformatted(piece.run!.container)) return base;
    let soft = this.softWraps.get(i);
    if (soft === undefined) {
      soft = characterBefore(this.points.before(i), piece.run!.container) !== '\n';
      this.softWraps.set(i, soft);
    }
    return soft ? Math.max(base, 2.5 * (previous.bottom - previous.top)) : base;
  }
}
