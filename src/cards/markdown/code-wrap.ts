// Where a long code line may wrap, and which blocks never wrap. The browser breaks code only at spaces, then anywhere (themes/
// _base.css); a line like `text.split(/\s+/).map(Number).filter(isValid)` has no space, so it would
// be cut in the middle of an identifier. A <wbr> after punctuation that ends a piece of an
// expression (`.`, `,`, `(`, `=`, …) lets it wrap there first, the way an editor wraps code.
import type { Element, ElementContent } from 'hast';

/** Box drawing (┌─┬─┐ tables, tree views) and block elements. */
const boxDrawing = /[\u2500-\u259f]/;
/** A line of `ls -l`: type and permission bits, then its columns. */
const longListing = /^[-dlcbps][rwxsStT-]{9}[.+@]?\s/;
/** Columns set apart by runs of spaces inside a line (tables printed by a program). */
const spacedColumns = /\S {2,}\S/;
/**
 * A comment after the code on its line, set apart by two spaces or more as many style guides ask
 * (`parse(text);  // ['a', 'b']`): not a column. Counted as one, a JavaScript block with two such
 * comments in four lines was drawn unwrapped, its type scaled to 5 px to fit its longest line.
 */
const trailingComment = / {2,}(?:\/\/|\/\*|#(?=\s)|--(?=\s)|;(?=\s)).*$/;
/** Characters drawn 1 em wide: CJK, and box drawing, which the bundled monospaced face lacks and a CJK face draws. */
const fullWidth = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff60\u2500-\u259f]/u;

/**
 * The width in em of the widest line, when the block is laid out in aligned columns (console
 * output, box drawings): wrapping such a line moves its cells under the wrong column and breaks
 * its frame, so the block is drawn unwrapped and its type scaled to fit (themes/_base.css,
 * pre.code-aligned). Undefined for other code, which wraps.
 */
export function alignedLineWidth(source: string): number | undefined {
  const lines = source.split('\n').filter((line) => line.trim() !== '');
  const aligned =
    boxDrawing.test(source) ||
    lines.filter((line) => longListing.test(line)).length >= 2 ||
    (lines.length >= 3 && lines.filter((line) => spacedColumns.test(line.trim().replace(trailingComment, ''))).length * 2 >= lines.length);
  if (!aligned) return undefined;
  // JetBrains Mono advances 0.6 em a character.
  const ems = Math.max(...lines.map((line) => [...line.replace(/\t/g, '        ')].reduce((sum, char) => sum + (fullWidth.test(char) ? 1 : 0.6), 0)));
  return Math.ceil(ems * 100) / 100;
}

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
