// Chinese and Japanese headings broken at their punctuation when it can be done. A heading may
// break between any two phrases (the Markdown stage's <wbr>s), and `text-wrap: balance` picks the
// break that evens its lines, so a title broke as "坚持早起100天，我的 / 人生真的变了吗？" although
// its comma was the place a reader expects. Here, in the laid-out document, each wrapped CJK heading
// that has such a place (after a comma, stop, colon, separator bar, closing bracket, or at a space)
// is tried with its phrase breaks taken away: it keeps the new lines when every line still ends at
// one of those places, no more lines are needed, nothing overflows, and no line is under 40% of
// the longest (a title broken as "是的， / 我很想去那个地方看看" would read worse than balanced phrases).

/** Characters after which a heading's line reads as ended. */
const strongEnds = '，、。！？；：｜,;:!?|）」』》】〕';
/**
 * Separators a title is set around ("手冲咖啡｜零失败攻略"): the page breaks before them as readily
 * as after, so they get a word joiner before and a break after.
 */
const separators = '｜|丨';
const wordJoiner = '\u2060';

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
    const unchanged = after.join('\n') === before.join('\n');
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

function readsBetter(before: string[], after: string[]): boolean {
  if (after.length > before.length) return false;
  if (!after.slice(0, -1).every((line) => strongEnds.includes(line.at(-1) ?? '') || line.endsWith(' '))) return false;
  const lengths = after.map((line) => [...line.trim()].length);
  return Math.min(...lengths) >= 0.4 * Math.max(...lengths);
}

/**
 * Removes the heading's <wbr>s except those right after punctuation, and puts one after each
 * separator bar; returns how to put everything back.
 */
function takePhraseBreaks(heading: HTMLElement): { undo: () => void } {
  const removed: Array<{ wbr: Element; parent: Node; next: Node | null }> = [];
  for (const wbr of Array.from(heading.querySelectorAll('wbr'))) {
    const previous = textBefore(wbr);
    if (strongEnds.includes(previous)) continue;
    removed.push({ wbr, parent: wbr.parentNode!, next: wbr.nextSibling });
    wbr.remove();
  }
  // Splits made to put a word joiner before a separator and a <wbr> after it: the text before it,
  // where the joiner went in it (-1 for none), the <wbr>, the text after.
  const splits: Array<{ text: Text; joiner: number; wbr: Element; rest: Text }> = [];
  const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
  for (const text of texts) {
    for (let i = text.data.length - 2; i >= 0; i--) {
      if (!separators.includes(text.data[i]!)) continue;
      const rest = text.splitText(i + 1);
      const wbr = document.createElement('wbr');
      rest.before(wbr);
      if (i > 0) text.insertData(i, wordJoiner);
      splits.push({ text, joiner: i > 0 ? i : -1, wbr, rest });
    }
  }
  return {
    undo: () => {
      for (const { text, joiner, wbr, rest } of splits.reverse()) {
        if (joiner >= 0) text.deleteData(joiner, 1);
        text.appendData(rest.data);
        rest.remove();
        wbr.remove();
      }
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

/** `dataText` with only the breaks that follow punctuation kept, and its separators held as in the heading. */
const keptBreaks = (dataText: string) =>
  dataText
    .replace(/(.?)\u200b/gu, (whole, previous: string) => (previous && strongEnds.includes(previous) ? whole : previous))
    .replace(/(.)([｜|丨])(?!\u200b)/gu, `$1${wordJoiner}$2\u200b`);

/**
 * The heading's lines as drawn: its characters grouped by the line box they sit on, each line
 * with a space at its end when the text broke at a space (the space itself is not drawn).
 */
function linesOf(heading: HTMLElement): string[] {
  const range = document.createRange();
  const lines: string[] = [];
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
        if (lines.length > 0 && spaceBefore) lines[lines.length - 1] += ' ';
        lines.push('');
        lastTop = rect.top;
      }
      spaceBefore = false;
      lines[lines.length - 1] += character;
    }
  }
  return lines;
}
