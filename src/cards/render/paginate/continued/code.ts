// A cut code block goes on in its frame on the next card; line numbers go on too. A continued <pre>
// carries --split-first-line, the number of its first line in the whole block (README.md, "Split
// modes"), which themes/_base.css feeds to the line counter.
import type { Point } from '../break-points.js';

/** How many source lines of the enclosing code block come before `start`, or 0 outside code. */
export function codeLinesBefore(start: Point, inner: HTMLElement): number {
  const startElement = start.node.nodeType === Node.ELEMENT_NODE ? (start.node as Element) : start.node.parentElement;
  const pre = startElement?.closest('pre');
  if (!pre || !inner.contains(pre)) return 0;
  const before = document.createRange();
  before.setStart(pre, 0);
  before.setEnd(start.node, start.offset);
  return before.toString().split('\n').length - 1;
}

export function continueCode(pre: Element, linesBefore: number): void {
  if (pre.tagName === 'PRE') (pre as HTMLElement).style.setProperty('--split-first-line', String(linesBefore + 1));
}
