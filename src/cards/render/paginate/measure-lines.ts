// Line boxes of a run of inline content (a paragraph, a list item's text, a code block), read from
// the browser's own layout: every text fragment's client rects and every inline object's box,
// merged into lines. Breaking between these lines is what lets a long paragraph or code block go
// on to the next card without a line cut in half.
import { isInlineAtom, lineHeightOf, px, styleOf } from './css.js';

export interface Line {
  /** The line box: what the layout places, glyphs centred in the line-height. */
  boxTop: number;
  boxBottom: number;
  /** Where glyphs and inline objects are drawn. */
  inkTop: number;
  inkBottom: number;
}

/** Consecutive inline nodes of one block container, and the lines they make. */
export interface Run {
  container: Element;
  nodes: Node[];
  lines: Line[];
  /** Filled in when a break inside the run needs a DOM position (see break-points.ts). */
  atoms?: Atom[];
}

/** One character or inline object of a run: the smallest thing a line starts with. */
export interface Atom {
  node: Node;
  offset: number;
  length: number;
  element?: Element;
}

interface Fragment {
  top: number;
  bottom: number;
  /** Half the leading: the line-height above and below the glyphs' content area. */
  lead: number;
}

/** The fragments of text and inline objects of `nodes`, wherever they are drawn. */
function fragmentsOf(nodes: Node[], range: Range): Fragment[] {
  const fragments: Fragment[] = [];
  const gather = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node as Text;
      if (!text.data) return;
      range.selectNodeContents(text);
      const lineHeight = lineHeightOf(text.parentElement!);
      for (const r of Array.from(range.getClientRects())) {
        if (r.width <= 0 || r.height <= 0) continue;
        fragments.push({ top: r.top, bottom: r.bottom, lead: Math.max(0, (lineHeight - r.height) / 2) });
      }
    } else if (node.nodeType === Node.ELEMENT_NODE) {
      const el = node as Element;
      const cs = styleOf(el);
      if (cs.display === 'none') return;
      if (isInlineAtom(el, cs.display)) {
        const r = el.getBoundingClientRect();
        if (r.height > 0) fragments.push({ top: r.top - px(cs.marginTop), bottom: r.bottom + px(cs.marginBottom), lead: 0 });
      } else {
        for (const child of Array.from(el.childNodes)) gather(child);
      }
    }
  };
  for (const node of nodes) gather(node);
  return fragments;
}

/**
 * The lines of `nodes`, top to bottom. Fragments that overlap vertically by more than half the
 * smaller one's height are on the same line (a superscript, a bigger inline image, mixed fonts).
 */
export function measureLines(nodes: Node[], range: Range): Line[] {
  const fragments = fragmentsOf(nodes, range).sort((a, b) => a.top - b.top);
  const lines: Line[] = [];
  for (const r of fragments) {
    const last = lines[lines.length - 1];
    const overlap = last ? Math.min(last.inkBottom, r.bottom) - Math.max(last.inkTop, r.top) : -1;
    if (last && overlap > 0.5 * Math.min(last.inkBottom - last.inkTop, r.bottom - r.top)) {
      last.inkTop = Math.min(last.inkTop, r.top);
      last.inkBottom = Math.max(last.inkBottom, r.bottom);
      last.boxTop = Math.min(last.boxTop, r.top - r.lead);
      last.boxBottom = Math.max(last.boxBottom, r.bottom + r.lead);
    } else {
      lines.push({ inkTop: r.top, inkBottom: r.bottom, boxTop: r.top - r.lead, boxBottom: r.bottom + r.lead });
    }
  }
  return lines;
}

/**
 * Where line `j` begins (the boundary with line `j - 1`). Line boxes of tall fonts may overlap;
 * the boundary is then kept between the two lines' ink, so neither is drawn across a card's edge.
 */
export function lineBoundary(lines: Line[], j: number): number {
  const above = lines[j - 1]!;
  const below = lines[j]!;
  if (above.inkBottom > below.inkTop) return (above.inkBottom + below.inkTop) / 2;
  return Math.min(Math.max(below.boxTop, above.inkBottom), below.inkTop);
}
