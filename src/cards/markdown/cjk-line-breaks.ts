// Hard-wrapped Chinese and Japanese: a line break in the source between two CJK characters is no
// word boundary, so it must not become a space ("通常\n就是" reads 通常就是, not 通常 就是), as
// CSS Text's segment-break rules say for wide characters. Korean separates words with spaces and
// keeps its breaks as spaces; so does a break between Latin and CJK text.
import type { Root, Text } from 'mdast';
import { toString as textOf } from 'mdast-util-to-string';
import { visit } from 'unist-util-visit';

/** Han, kana, bopomofo and CJK or full-width punctuation; not Hangul. */
const wide = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\u3000-\u303f\uff00-\uff60\uffe0-\uffe6\u30fc]/u;

export function remarkJoinCjkLines() {
  return (tree: Root) => {
    visit(tree, 'text', (node: Text, index, parent) => {
      if (!parent || index === undefined || !node.value.includes('\n')) return;
      const before = index > 0 ? textOf(parent.children[index - 1]).slice(-1) : '';
      const after = index + 1 < parent.children.length ? textOf(parent.children[index + 1]).slice(0, 1) : '';
      node.value = node.value.replace(/[ \t]*\n[ \t]*/g, (match, offset: number, whole: string) => {
        const previous = offset > 0 ? [...whole.slice(0, offset)].at(-1)! : before;
        const next = offset + match.length < whole.length ? String.fromCodePoint(whole.codePointAt(offset + match.length)!) : after;
        return wide.test(previous) && wide.test(next) ? '' : match;
      });
    });
  };
}
