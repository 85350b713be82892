// Small facts about elements and text read from the page's computed styles, shared by measuring,
// break rules and card assembly.

export const px = (value: string): number => parseFloat(value) || 0;

export const styleOf = (el: Element): CSSStyleDeclaration => getComputedStyle(el);

export const isHeading = (el: Element): boolean => /^H[1-6]$/.test(el.tagName);

/** Elements that are laid out whole, however they are displayed: a break never falls inside one. */
export const atomicTags = new Set(['IMG', 'SVG', 'VIDEO', 'CANVAS', 'FIGURE', 'MATH', 'IFRAME', 'OBJECT', 'HR', 'INPUT']);

/** An inline-level box that is laid out whole (an image, an inline-block, a formula): never split inside. */
export const isInlineAtom = (el: Element, display: string): boolean =>
  (display !== 'inline' && display !== 'contents') || atomicTags.has(el.tagName.toUpperCase());

/** Text whose white space is kept (code): there every character, even a space or newline, counts. */
export const preformatted = (node: Node): boolean => {
  const parent = node.nodeType === Node.TEXT_NODE ? node.parentElement : (node as Element);
  return parent ? /^(pre|pre-wrap|break-spaces|pre-line)$/.test(styleOf(parent).whiteSpace) : false;
};

/** Text that draws something: white space between tags does not, except in code. */
export const meaningfulText = (text: Text): boolean => (preformatted(text) ? text.data.length > 0 : /\S/.test(text.data));

// Read once per element: a document has thousands of text nodes and few distinct parents.
const lineHeights = new WeakMap<Element, number>();
export const lineHeightOf = (el: Element): number => {
  let value = lineHeights.get(el);
  if (value === undefined) {
    value = px(styleOf(el).lineHeight);
    lineHeights.set(el, value);
  }
  return value;
};

/** The position of `node` among its parent's children: the DOM offset just before it. */
export const indexOf = (node: Node): number => Array.prototype.indexOf.call(node.parentNode!.childNodes, node) as number;

const transparent = 'rgba(0, 0, 0, 0)';
const hasPseudoContent = (el: Element, pseudo: '::before' | '::after') => !/^(none|normal)$/.test(getComputedStyle(el, pseudo).content);

/** Its own box shows: a background, a border, a shadow, a list marker or a generated ::before/::after. */
const paintsOwnBox = (el: Element, cs: CSSStyleDeclaration): boolean =>
  cs.backgroundColor !== transparent ||
  cs.backgroundImage !== 'none' ||
  cs.boxShadow !== 'none' ||
  ['top', 'right', 'bottom', 'left'].some((side) => px(cs.getPropertyValue(`border-${side}-width`)) > 0 && cs.getPropertyValue(`border-${side}-style`) !== 'none') ||
  cs.display === 'list-item' ||
  hasPseudoContent(el, '::before') ||
  hasPseudoContent(el, '::after');

/**
 * An element a reader sees nothing of: no text but white space, no image, rule, table or formula,
 * and no box of its own that shows (an empty <div>, <p> </p>, a <br>, raw HTML of empty tags). It
 * never makes a card of its own.
 */
export function drawsNothing(el: Element): boolean {
  const tag = el.tagName.toUpperCase();
  if (atomicTags.has(tag) || tag === 'TABLE') return false;
  const cs = styleOf(el);
  if (cs.display === 'none') return true;
  if (paintsOwnBox(el, cs)) return false;
  for (const child of Array.from(el.childNodes)) {
    if (child.nodeType === Node.TEXT_NODE && meaningfulText(child as Text)) return false;
    if (child.nodeType === Node.ELEMENT_NODE && !drawsNothing(child as Element)) return false;
  }
  return true;
}
