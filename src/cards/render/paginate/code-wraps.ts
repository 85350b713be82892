// Break rules of code blocks: break between source lines, not inside a long source line that the
// card's width wraps (README.md, "Split modes"), and not right after a line that is only a comment
// when code follows it: such a comment says what the code under it does ("# install it", then the
// command), and left at the foot of a card it is cut from what it introduces. Whether a line of a
// code block begins a source line is only known from its DOM position (is the character before it
// a newline?), so these rules are applied lazily, to the candidates the search for breaks actually
// weighs (card-cost.ts).
import { preformatted } from './css.js';
import { characterBefore, type BreakPoints } from './break-points.js';
import type { Piece } from './pieces.js';

/** A source line that is a comment alone: `#`, `//`, `--`, `;`, `%` or `/*` and what follows. */
const commentLine = /^\s*(?:#(?=\s|$)|\/\/|--\s|;|%|\/\*)/;

export class CodeWrapRule {
  /** Candidates found to fall inside a wrapped source line or after an introducing comment. */
  private readonly keptTogether = new Map<number, boolean>();
  private readonly range = document.createRange();
  /** Each code block's source lines, read once. */
  private readonly sourceLines = new Map<Element, Element[]>();

  constructor(
    private readonly pieces: Piece[],
    private readonly points: BreakPoints,
  ) {}

  /**
   * The penalty of candidate i raised to 2.5 lines when it falls inside a wrapped source line, or
   * right after a comment line with code under it.
   */
  penalty(i: number, base: number): number {
    const piece = this.pieces[i]!;
    const previous = this.pieces[i - 1]!;
    if (piece.kind !== 'line' || piece.line === 0 || previous.run !== piece.run || !preformatted(piece.run!.container)) return base;
    let kept = this.keptTogether.get(i);
    if (kept === undefined) {
      const point = this.points.before(i);
      const container = piece.run!.container;
      kept = characterBefore(point, container) !== '\n' || this.afterIntroducingComment(point, container);
      this.keptTogether.set(i, kept);
    }
    return kept ? Math.max(base, 2.5 * (previous.bottom - previous.top)) : base;
  }

  /**
   * Whether the source line before `point` (a break between source lines) is a comment alone, and
   * the one after it code. The block's source lines (span.line, markdown/code-blocks.ts) are found
   * by bisection: the lines that end at or before the break.
   */
  private afterIntroducingComment(point: { node: Node; offset: number }, container: Element): boolean {
    const lines = this.sourceLines.get(container) ?? Array.from(container.querySelectorAll('.line'));
    this.sourceLines.set(container, lines);
    this.range.setStart(point.node, point.offset);
    this.range.collapse(true);
    let ended = 0;
    for (let high = lines.length; ended < high; ) {
      const middle = (ended + high) >> 1;
      if (this.range.comparePoint(lines[middle]!, lines[middle]!.childNodes.length) <= 0) ended = middle + 1;
      else high = middle;
    }
    const before = lines[ended - 1]?.textContent ?? '';
    const after = lines[ended]?.textContent ?? '';
    return commentLine.test(before) && after.trim() !== '' && !commentLine.test(after);
  }
}
