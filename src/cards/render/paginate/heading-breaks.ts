// Chinese and Japanese headings broken at their punctuation when it can be done. A heading may
// break between any two phrases (the Markdown stage's <wbr>s), and `text-wrap: balance` picks the
// break that evens its lines, so a title broke as "坚持早起100天，我的 / 人生真的变了吗？" although
// its comma was the place a reader expects. Here, in the laid-out document, each wrapped CJK heading
// that has such a place (after a comma, stop, colon, separator bar, closing bracket, or at a space)
// is tried with its other phrase breaks taken away: it keeps the new lines when every line still
// ends at one of those places, no more lines are needed, it grows no wider, and no line is
// narrower than 40% of the widest (a title broken as "是的， / 我很想去那个地方看看" would read
// worse than balanced phrases).

/**
 * Characters after which a heading's line reads as ended: the Markdown stage's closing punctuation
 * and separator bars (markdown/cjk-phrases.ts, which this page-side folder cannot import).
 */
const strongEnds = '，、。！？；：｜,;:!?|）」』》】〕';
/**
 * Breaks the wrapped CJK headings of `inner` at their punctuation where they read better so;
 * true when any changed.
 */
export function breakHeadingsAtPunctuation(inner: Element): boolean {
  let changed = false;
  for (const heading of Array.from(inner.querySelectorAll<HTMLElement>(':is(h1, h2, h3, h4, h5, h6)[data-phrases]'))) {
    const text = heading.textContent ?? '';
    if (!hasStrongBreak(text) || !wraps(heading)) continue;
    const before = linesOf(heading);
    if (before.length < 2) continue;
    // Compared with what the heading drew before: a theme's copy laid over it may reach past it.
    const widthBefore = heading.scrollWidth;
    const taken = takePhraseBreaks(heading);
    const after = linesOf(heading);
    const unchanged = after.map((line) => line.text).join('\n') === before.map((line) => line.text).join('\n');
    if (!unchanged && readsBetter(before, after) && heading.scrollWidth <= widthBefore) {
      // A copy of the heading that themes lay over it breaks at the same places (data-text holds
      // a zero-width space at each phrase break).
      if (heading.dataset.text !== undefined) heading.dataset.text = keptBreaks(heading.dataset.text);
      changed = true;
    } else {
      // Left as it was when it breaks at its punctuation already: nothing to read again.
      taken.undo();
    }
  }
  return changed;
}

/** Whether `heading` is drawn on more than one line: one read of its fragments' boxes. */
function wraps(heading: HTMLElement): boolean {
  const range = document.createRange();
  range.selectNodeContents(heading);
  const boxes = Array.from(range.getClientRects()).filter((box) => box.width > 0);
  return boxes.some((box) => box.top > boxes[0]!.top + boxes[0]!.height / 2);
}

/** A place inside the text (not at its end) where a line may end at punctuation or a space. */
function hasStrongBreak(text: string): boolean {
  const trimmed = text.trim();
  for (let i = 0; i < trimmed.length - 1; i++) if (strongEnds.includes(trimmed[i]!) || /\s/.test(trimmed[i]!)) return true;
  return false;
}

function readsBetter(before: Line[], after: Line[]): boolean {
  if (after.length > before.length) return false;
  if (!after.slice(0, -1).every(({ text }) => strongEnds.includes(text.at(-1) ?? '') || text.endsWith(' '))) return false;
  // Widths, not characters: "旅行vlog｜" is seven characters and a third of a line.
  const widths = after.map((line) => line.width);
  return Math.min(...widths) >= 0.4 * Math.max(...widths);
}

/** Removes the heading's <wbr>s except those right after punctuation; returns how to put them back. */
function takePhraseBreaks(heading: HTMLElement): { undo: () => void } {
  const removed: Array<{ wbr: Element; parent: Node; next: Node | null }> = [];
  for (const wbr of Array.from(heading.querySelectorAll('wbr'))) {
    if (strongEnds.includes(textBefore(wbr))) continue;
    removed.push({ wbr, parent: wbr.parentNode!, next: wbr.nextSibling });
    wbr.remove();
  }
  return {
    undo: () => {
      for (const { wbr, parent, next } of removed.reverse()) parent.insertBefore(wbr, next);
    },
  };
}

/** The character drawn right before `node`, within its heading. */
function textBefore(node: Node): string {
  for (let previous = node.previousSibling; previous; previous = previous.previousSibling) {
    const text = previous.textContent ?? '';
    if (text) return text.at(-1)!;
  }
  return '';
}

/** `dataText` with only the breaks that follow punctuation kept. */
const keptBreaks = (dataText: string) => dataText.replace(/(.?)\u200b/gu, (whole, previous: string) => (previous && strongEnds.includes(previous) ? whole : previous));

/** A line of a heading: its characters, with a space at the end when it broke at a space, and the width they are drawn over. */
interface Line {
  text: string;
  width: number;
}

/** The heading's lines as drawn: its characters grouped by the line box they sit on. */
function linesOf(heading: HTMLElement): Line[] {
  const range = document.createRange();
  const lines: Array<Line & { left: number; right: number }> = [];
  let lastTop: number | undefined;
  let spaceBefore = false;
  const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    for (let i = 0; i < node.data.length; i++) {
      const character = node.data[i]!;
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (/\s/.test(character) || !rect || rect.width === 0) {
        spaceBefore ||= /\s/.test(character);
        continue;
      }
      if (lastTop === undefined || rect.top > lastTop + rect.height / 2) {
        const previous = lines.at(-1);
        if (previous && spaceBefore) previous.text += ' ';
        lines.push({ text: '', width: 0, left: rect.left, right: rect.right });
        lastTop = rect.top;
      }
      spaceBefore = false;
      const line = lines.at(-1)!;
      line.text += character;
      line.left = Math.min(line.left, rect.left);
      line.right = Math.max(line.right, rect.right);
      line.width = line.right - line.left;
    }
  }
  return lines;
}
