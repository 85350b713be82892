// A cut table keeps its header row and its columns on every card: the header row is repeated
// (marked data-split-repeat, so it is not counted as content twice) and every part of the table is
// given the column widths of the whole table, so columns do not jump from card to card.

/** The whole table in the measuring frame that a part on a card was cut from. */
function wholeTable(part: Element, inner: HTMLElement): HTMLTableElement | null {
  const original = inner.querySelector(`table[data-split-table="${part.getAttribute('data-split-table')}"]`);
  return original instanceof HTMLTableElement ? original : null;
}

/** On a card where a table goes on: its header row again, above the rows. */
export function repeatHeaderRow(part: Element, inner: HTMLElement): void {
  if (!(part instanceof HTMLTableElement) || part.tHead) return;
  const head = wholeTable(part, inner)?.tHead;
  if (!head) return;
  const repeated = head.cloneNode(true) as HTMLElement;
  repeated.setAttribute('data-split-repeat', '');
  part.insertBefore(repeated, part.tBodies[0] ?? null);
}

/** Fixes the columns of every cut table on the card to the widths they have in the whole table. */
export function keepColumns(cardInner: Element, inner: HTMLElement): void {
  for (const table of Array.from(cardInner.querySelectorAll('table.split-continued, table[data-split-to]'))) {
    const firstRow = wholeTable(table, inner)?.rows[0];
    if (!firstRow || table.querySelector('colgroup')) continue;
    const columns = document.createElement('colgroup');
    for (const cell of Array.from(firstRow.cells)) {
      const col = document.createElement('col');
      col.span = cell.colSpan;
      col.style.width = `${cell.getBoundingClientRect().width}px`;
      columns.appendChild(col);
    }
    table.insertBefore(columns, table.firstChild);
    (table as HTMLElement).style.tableLayout = 'fixed';
  }
}
