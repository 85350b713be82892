// The icon of a GitHub alert's title (> [!NOTE] …), added after sanitizing. remark-github-blockquote-alert
// draws it as an inline <svg>, but the sanitizer keeps no <svg> of the document (raw HTML may
// not bring one into the page), so the plugin's own icon goes through as nothing and is put back
// here, from the plugin's data, where only an alert the plugin made can have it.
import type { Element, Properties, Root } from 'hast';
import { getAlertIcon } from 'remark-github-blockquote-alert';
import { visit } from 'unist-util-visit';

type AlertKind = Parameters<typeof getAlertIcon>[0];
const kinds = new Set<string>(['note', 'tip', 'important', 'warning', 'caution']);

export function rehypeAlertIcons() {
  return (tree: Root) => {
    visit(tree, 'element', (alert: Element) => {
      const classes = Array.isArray(alert.properties.className) ? alert.properties.className.map(String) : [];
      if (alert.tagName !== 'div' || !classes.includes('markdown-alert')) return;
      const kind = classes.find((name) => name.startsWith('markdown-alert-'))?.slice('markdown-alert-'.length);
      const title = alert.children.find((child): child is Element => child.type === 'element' && child.tagName === 'p');
      if (!kind || !kinds.has(kind) || !title) return;
      title.children.unshift(iconOf(kind as AlertKind));
    });
  };
}

function iconOf(kind: AlertKind): Element {
  const icon = getAlertIcon(kind) as unknown as { data: { hProperties: Properties }; children: Array<{ data: { hProperties: Properties } }> };
  return {
    type: 'element',
    tagName: 'svg',
    properties: icon.data.hProperties,
    children: icon.children.map((path) => ({ type: 'element', tagName: 'path', properties: path.data.hProperties, children: [] })),
  };
}
