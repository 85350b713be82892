// A code block draws each source line as one inline block (themes/_base.css, `.shiki .line`), so a
// long line wraps under a hanging indent with a mark at each continued line; pagination breaks
// between source lines, and a source line is one piece however many lines it wraps over. One that
// wraps over more lines than a card holds (an `integrity` hash or a minified line at 200×200) was
// then clipped at the card's foot and its end lost. Such a line is drawn inline instead: its
// wrapped lines are lines of the block like any other, and a card may end between them.
import { styleOf } from './css.js';

/** Draws inline every source line of a code block too tall for a card together with the block's frame. */
export function unwrapTallCodeLines(inner: HTMLElement, available: number): void {
  let changed = false;
  for (const code of Array.from(inner.querySelectorAll<HTMLElement>('pre > code'))) {
    const pre = code.parentElement!.getBoundingClientRect();
    // A block no taller than a card has no line taller than one: most blocks are passed over here.
    if (pre.height <= available) continue;
    const lines = Array.from(code.children as HTMLCollectionOf<HTMLElement>).filter((line) => line.classList.contains('line'));
    if (lines.length === 0) continue;
    // What the frame takes above and below the code: its label, padding and border.
    const frame = lines[0]!.getBoundingClientRect().top - pre.top + pre.bottom - lines[lines.length - 1]!.getBoundingClientRect().bottom;
    const tall = lines.filter((line) => line.getBoundingClientRect().height > available - frame && styleOf(line).display === 'inline-block');
    for (const line of tall) {
      line.classList.add('line-unwrapped');
      line.style.display = 'inline';
    }
    changed ||= tall.length > 0;
  }
  // Laid out again at once, so the pieces read next see the lines.
  if (changed) void inner.offsetHeight;
}
