// A cut ordered list goes on with its numbers: the continued <ol> starts at the number of its first
// item. The Markdown renderer numbers every item (data-index), so the number is known even when the
// item's own marker is hidden (a continued item draws none, themes/_base.css).
export function continueList(list: Element): void {
  if (list.tagName !== 'OL') return;
  const first = Array.from(list.children).find((child) => child.tagName === 'LI');
  const index = first?.getAttribute('data-index');
  if (index) list.setAttribute('start', index);
}
