// Which bundled faces draw a code point: what a render page must declare before its cards use the
// character (render/page-fonts.ts). The faces of one family, weight and style never claim the
// same code point (fonts.ts), so each such group is a sorted list of ranges, searched by halving.
import { type BundledFaces, formatRanges, unicodeRange } from './fonts.js';

export class FontFaceIndex {
  /** Answers already found: a page asks for the same characters again and again. */
  private readonly found = new Map<number, readonly number[]>();

  constructor(private readonly bundled: BundledFaces) {}

  /**
   * The face's rule with every code point it claims, as the whole bundled stylesheet declares it;
   * undefined for a subset of CJK characters, which a page declares with the characters it uses.
   */
  wholeRuleFor(face: number): string | undefined {
    const range = this.bundled.wholeRanges[face];
    return range ? this.bundled.rules[face]!.replace(unicodeRange, range) : undefined;
  }

  /** Every face (by index, ascending) whose unicode-range holds `codePoint`: at most one per group. */
  facesAt(codePoint: number): readonly number[] {
    const known = this.found.get(codePoint);
    if (known) return known;
    const faces: number[] = [];
    for (const { lows, highs, faces: owners } of this.bundled.groups) {
      // The last range starting at or before the code point is the only one that can hold it.
      let low = 0;
      let high = lows.length - 1;
      while (low < high) {
        const middle = (low + high + 1) >>> 1;
        if (lows[middle]! <= codePoint) low = middle;
        else high = middle - 1;
      }
      if (lows[low]! <= codePoint && codePoint <= highs[low]!) faces.push(owners[low]!);
    }
    faces.sort((a, b) => a - b);
    this.found.set(codePoint, faces);
    return faces;
  }

  /** The faces that claim some of these code points, in stylesheet order, each with the points it claims. */
  pointsByFace(codePoints: Iterable<number>): Array<[face: number, points: number[]]> {
    const pointsOf = new Map<number, number[]>();
    for (const point of codePoints) {
      for (const face of this.facesAt(point)) {
        const points = pointsOf.get(face);
        if (points) points.push(point);
        else pointsOf.set(face, [point]);
      }
    }
    return [...pointsOf].sort(([a], [b]) => a - b);
  }

  /**
   * A rule for every family, weight and style, each declaring the first code point it claims. A
   * page declares them all from the start, whatever its text: a family the page did not declare
   * at all would be looked up among the host's fonts, and a weight it did not declare would be
   * synthesised from another that it did.
   */
  groupDeclarations(): string {
    return this.bundled.groups.map((group) => this.ruleFor(group.faces[0]!, [group.lows[0]!])).join('\n');
  }

  /** The face's rule, with a `unicode-range` of these code points (runs of consecutive ones written as ranges). */
  ruleFor(face: number, points: readonly number[]): string {
    const ranges: Array<[number, number]> = [];
    for (const point of [...points].sort((a, b) => a - b)) {
      const last = ranges.at(-1);
      if (last && point <= last[1] + 1) last[1] = Math.max(last[1], point);
      else ranges.push([point, point]);
    }
    return this.bundled.rules[face]!.replace(unicodeRange, formatRanges(ranges));
  }
}
