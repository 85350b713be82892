// Long URLs, paths and identifiers in running text break where a reader expects: after the `/`,
// `.`, `_`, `-`, `:`, `?`, `&`, `=` or `#` that follows a letter or digit, and before a capital
// that follows a small letter (max|Concurrent), never between two digits (0.1, 2026-11-26). Without
// these break points such a run breaks anywhere (the card's `overflow-wrap: anywhere`), which left
// "https://www.npmjs.com/~davidma" on one line and "s" alone on the next. Only runs of 16 or more
// such characters get them: shorter words break, or not, as they always did. Code blocks keep
// their own wrapping (code-wrap.ts) and tables their own fitting (see `skipped`); inline code gets
// the same break points as text.
import type { Element, ElementContent, Root, Text } from 'hast';
import { SKIP, visit } from 'unist-util-visit';

const longRun = /[\p{Script=Latin}\p{N}/._~?&=#:%+@-]{16,}/gu;
/** The same, for a yes or no: a global pattern's test() moves its lastIndex, which matchAll then starts from. */
const anyLongRun = new RegExp(longRun.source, 'u');
/** Separators after which a run may break, when a letter, digit or `~` follows (`https://|`, `com/|~name`). */
const separators = /[/._?&=#:-]+(?=[\p{L}\p{N}~])/gu;
const letterOrDigit = /[\p{L}\p{N}]/u;
const digit = /\p{N}/u;
const camelCase = /(?<=\p{Ll})(?=\p{Lu})/gu;
/**
 * Elements whose text is not running text, or is laid out by its own rules: a table's cells break
 * their identifiers only when the table is too wide for the card (render/fit-tables.ts), so that
 * no column gives up its words while another has room.
 */
const skipped = new Set(['pre', 'script', 'style', 'svg', 'math', 'table']);

export function rehypeLongWordBreaks() {
  return (tree: Root) => {
    visit(tree, (node, index, parent) => {
      if (node.type === 'element' && (skipped.has(node.tagName) || isKatex(node))) return SKIP;
      if (node.type !== 'text' || !parent || index === undefined || !hasLongRun(node.value)) return undefined;
      const pieces = splitAtBreakPoints(node.value);
      if (pieces.length === 1) return undefined;
      const replacement: ElementContent[] = pieces.flatMap((piece, at): ElementContent[] => [
        ...(at > 0 ? [{ type: 'element', tagName: 'wbr', properties: {}, children: [] } satisfies Element] : []),
        { type: 'text', value: piece } satisfies Text,
      ]);
      parent.children.splice(index, 1, ...replacement);
      // Past the pieces just inserted: they hold no further break points to find.
      return index + replacement.length;
    });
  };
}

function isKatex(element: Element): boolean {
  const className = element.properties.className;
  return Array.isArray(className) && className.some((name) => String(name).startsWith('katex'));
}

function hasLongRun(text: string): boolean {
  return anyLongRun.test(text);
}

/** `text` cut at the break points of its long runs (one piece when it has none). */
export function splitAtBreakPoints(text: string): string[] {
  const offsets: number[] = [];
  for (const run of text.matchAll(longRun)) {
    const word = run[0];
    for (const match of word.matchAll(separators)) {
      const before = word[match.index - 1];
      const after = word[match.index + match[0].length]!;
      if (before === undefined || !letterOrDigit.test(before) || (digit.test(before) && digit.test(after))) continue;
      offsets.push(run.index + match.index + match[0].length);
    }
    for (const match of word.matchAll(camelCase)) offsets.push(run.index + match.index);
  }
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  return [0, ...sorted].map((start, at) => text.slice(start, sorted[at] ?? text.length));
}
