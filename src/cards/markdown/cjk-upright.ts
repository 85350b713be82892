// Chinese, Japanese and Korean words inside a block written mostly in another script (a Latin
// sentence quoting 中文, a quote that mixes both). Themes set whole quotes, titles or emphasis in
// italics, and the CJK faces have no italic, so the browser would slant their glyphs
// synthetically, which reads as a mistake. Blocks mostly in CJK are marked data-cjk
// (cjk-blocks.ts) and drawn without synthetic slant as a whole; in the other blocks each CJK run
// is wrapped in span.cjk-upright, which themes/_base.css draws without it, while the Latin words
// around it keep their italic.
import type { Element, ElementContent, Root } from 'hast';

const cjkRun = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}\u3000-\u303f\uff00-\uffef\u30fc]+)/u;

/** Code, math and drawings are never italicised by themes; CJK emphasis has its own span (cjk-emphasis.ts), and a hashtag chip is one word drawn upright whole. */
const leftAlone = new Set(['code', 'pre', 'kbd', 'samp', 'svg', 'math', 'script', 'style']);
const classes = (node: Element) => (Array.isArray(node.properties.className) ? node.properties.className.map(String) : []);
const isCovered = (node: Element) =>
  leftAlone.has(node.tagName) || node.properties.dataCjk !== undefined || classes(node).some((name) => name === 'cjk-em' || name === 'cjk-upright' || name === 'hashtag' || name.startsWith('katex'));

export function rehypeUprightCjkRuns() {
  return (tree: Root) => {
    for (const child of tree.children) if (child.type === 'element') wrapRunsIn(child);
  };
}

function wrapRunsIn(element: Element): void {
  if (isCovered(element)) return;
  element.children = element.children.flatMap((child): ElementContent[] => {
    if (child.type === 'element') {
      wrapRunsIn(child);
      return [child];
    }
    return child.type === 'text' ? spanCjkRuns(child.value, 'cjk-upright') : [child];
  });
}

/** A text split into its CJK runs, each in a span of this class, and the text between them. */
export function spanCjkRuns(text: string, className: string): ElementContent[] {
  if (!cjkRun.test(text)) return [{ type: 'text', value: text }];
  return text
    .split(cjkRun)
    .filter(Boolean)
    .map((piece): ElementContent =>
      cjkRun.test(piece) ? { type: 'element', tagName: 'span', properties: { className: [className] }, children: [{ type: 'text', value: piece }] } : { type: 'text', value: piece },
    );
}
