// Where a long code line may wrap. The browser breaks code only at spaces, then anywhere (themes/
// _base.css); a line like `text.split(/\s+/).map(Number).filter(isValid)` has no space, so it would
// be cut in the middle of an identifier. A <wbr> after punctuation that ends a piece of an
// expression (`.`, `,`, `(`, `=`, …) lets it wrap there first, the way an editor wraps code.
import type { Element, ElementContent } from 'hast';

/** Punctuation after which a line may wrap when a word, string or bracket follows (not inside `&&`, `=>`, `::`). */
const breakAfter = /([.,;:([{=&|/>+\-*?](?=[\p{L}\p{N}_$@#"'`([{!]))/u;

/** Adds break points to the text of every token of a highlighted `code` element, in place. */
export function addCodeBreakPoints(code: Element): void {
  code.children = code.children.flatMap(withBreakPoints);
}

/**
 * Gives every `span.line` its indentation in characters (`--line-indent`), so the rows of a
 * wrapped line continue under its own indentation rather than under the gutter.
 */
export function markLineIndents(code: Element): void {
  for (const line of code.children) {
    if (line.type !== 'element') continue;
    const indent = /^[ \t]*/.exec(textOf(line))![0];
    const width = [...indent].reduce((sum, char) => sum + (char === '\t' ? 8 : 1), 0);
    if (width > 0) line.properties.style = `--line-indent: ${width}`;
  }
}

function textOf(node: ElementContent): string {
  if (node.type === 'text') return node.value;
  return node.type === 'element' ? node.children.map(textOf).join('') : '';
}

function withBreakPoints(node: ElementContent): ElementContent[] {
  if (node.type === 'element') {
    node.children = node.children.flatMap(withBreakPoints);
    return [node];
  }
  if (node.type !== 'text' || node.value.length < 2) return [node];
  const pieces = node.value.split(breakAfter);
  if (pieces.length === 1) return [node];
  const out: ElementContent[] = [];
  for (let i = 0; i < pieces.length; i += 2) {
    const text = pieces[i]! + (pieces[i + 1] ?? '');
    if (text) out.push({ type: 'text', value: text });
    if (i + 1 < pieces.length) out.push({ type: 'element', tagName: 'wbr', properties: {}, children: [] });
  }
  return out;
}
