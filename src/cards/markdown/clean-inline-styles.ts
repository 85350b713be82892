// Inline `style` is allowed in raw HTML (authors use it for colour and layout), but only plain
// declarations survive: nothing that loads a resource (url(), image-set(), @import), runs script
// (expression(), javascript:, behavior, -moz-binding) or hides words behind CSS escapes.
// The render page has no network and no JavaScript anyway; this is the wall in front of that one.
import type { Element, Root } from 'hast';
import parseStyle from 'style-to-object';
import { visit } from 'unist-util-visit';

const maxStyleLength = 4000;
const propertyName = /^(?:--)?-?[a-z][a-z0-9-]*$/i;
const forbiddenProperty = /^(?:behavior|-moz-binding)$/i;
const forbiddenValue = /url\s*\(|image-set\s*\(|image\s*\(|cross-fade\s*\(|element\s*\(|expression\s*\(|javascript\s*:|vbscript\s*:|@import|\\|<|>/i;

/** The declarations of `style` that are safe to keep, serialized again; empty when none are. */
export function cleanInlineStyle(style: string): string {
  if (style.length > maxStyleLength) return '';
  const kept: string[] = [];
  try {
    parseStyle(style, (property, value) => {
      if (!propertyName.test(property) || forbiddenProperty.test(property) || forbiddenValue.test(value)) return;
      kept.push(`${property}: ${value}`);
    });
  } catch {
    return '';
  }
  return kept.join('; ');
}

/** rehype: cleans every `style` attribute of the author's (sanitized) HTML. */
export function rehypeCleanInlineStyles() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element) => {
      const style = node.properties.style;
      if (style === undefined) return;
      const cleaned = typeof style === 'string' ? cleanInlineStyle(style) : '';
      if (cleaned) node.properties.style = cleaned;
      else delete node.properties.style;
    });
  };
}
