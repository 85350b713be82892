// Tables that fit the card without breaking words. Cells wrap only between words (themes/_base.css),
// so the browser's table layout gives every column at least its longest word and shares the rest
// out: no word or number breaks while any column can still give room. A table whose words alone are
// wider than the card is the one case CSS cannot solve; this pass, run once in the render page
// before layout and pagination, handles it:
//   1. identifiers in its cells may break where a reader expects it: after `_`, `.`, `/` or `-`
//      next to a letter, and before a capital that follows a small letter (maxConcurrent|Requests);
//   2. its cells' type and padding shrink together until the table fits, down to the theme's
//      --table-min-font-size (12px by default, see themes/README.md);
//   3. if it is still too wide, it is drawn stacked at the theme's own type: each row a block of
//      "label: value" lines, the label its column's header (class .table-stacked), so no column is
//      squeezed to a character a line and nothing shrinks further;
//   4. a table that cannot be stacked (no header row, or cells spanning columns) has only its widest
//      columns narrowed, to a shared width that makes the table fit, and only their cells may break
//      a word (class .table-break-words); the smaller type of step 2 is kept only if it spares cells
//      from breaking (a single URL that fits no card breaks anyway, and its table keeps the theme's type).
// The result is the document's HTML with those sizes written into it, so every card of the request,
// split or not, draws the table the same way.
import { cardGeometry, cardMarkup } from './card-markup.js';
import type { RenderPage } from './render-page.js';
import type { CardRenderRequest } from './render-cards.js';

/** What fitting tables reads of a render request: the card's size and scale, and the document. */
export type FitTablesRequest = Pick<CardRenderRequest, 'theme' | 'mode' | 'width' | 'height' | 'scale' | 'fontScale' | 'contentHtml'>;

/** Whether the document has a table to fit (without one, fitting costs no layout). */
export const hasTables = (contentHtml: string): boolean => /<table[\s>]/i.test(contentHtml);

/** `contentHtml` with every too-wide table fitted; unchanged (and no layout paid) without tables. */
export async function fitTables(page: RenderPage, request: FitTablesRequest): Promise<string> {
  if (!hasTables(request.contentHtml)) return request.contentHtml;
  const markup = cardMarkup({ ...request, fixedHeight: false, contentHtml: '' });
  const geometry = cardGeometry(request.width, request.height, request.scale, request.fontScale);
  await page.useDeviceMetrics(Math.ceil(geometry.width), geometry.deviceScale);
  const html = await page.run(fitTablesInPage, { markup, contentHtml: request.contentHtml });
  return html ?? request.contentHtml;
}

/**
 * Runs in the page (self-contained, like paginate-in-page.ts). Returns the fitted HTML, or null when
 * no table needed fitting.
 */
export async function fitTablesInPage(input: { markup: string; contentHtml: string }): Promise<string | null> {
  const root = document.getElementById('cards')!;
  root.innerHTML = input.markup;
  const inner = root.querySelector('.card-content-inner') as HTMLElement;
  inner.innerHTML = input.contentHtml;
  void root.offsetHeight;
  await document.fonts.ready;
  const px = (value: string) => parseFloat(value) || 0;
  /** Width the table may take: its container's content box. */
  const room = (table: HTMLElement) => {
    const parent = table.parentElement!;
    const cs = getComputedStyle(parent);
    return parent.clientWidth - px(cs.paddingLeft) - px(cs.paddingRight) - px(getComputedStyle(table).marginLeft) - px(getComputedStyle(table).marginRight);
  };
  const tooWide = (table: HTMLElement) => table.getBoundingClientRect().width > room(table) + 0.5;
  let changed = false;
  for (const table of Array.from(inner.querySelectorAll('table')) as HTMLTableElement[]) {
    if (!tooWide(table)) continue;
    changed = true;
    const cells = Array.from(table.querySelectorAll('th, td')) as HTMLElement[];
    breakIdentifiers(cells);
    if (!tooWide(table)) continue;
    const original = cells.map((cell) => {
      const cs = getComputedStyle(cell);
      return { font: px(cs.fontSize), left: px(cs.paddingLeft), right: px(cs.paddingRight) };
    });
    const minimum = px(getComputedStyle(table).getPropertyValue('--table-min-font-size')) || 12;
    const largest = Math.max(...original.map((o) => o.font));
    const floor = Math.min(1, minimum / largest);
    // Each cell shrinks by the same factor but never below the minimum (a header set smaller than
    // the body stops there too).
    const apply = (factor: number) => {
      cells.forEach((cell, i) => {
        const o = original[i]!;
        const cellFactor = Math.max(factor, Math.min(1, minimum / o.font));
        cell.style.fontSize = `${(o.font * cellFactor).toFixed(2)}px`;
        cell.style.paddingLeft = `${(o.left * cellFactor).toFixed(2)}px`;
        cell.style.paddingRight = `${(o.right * cellFactor).toFixed(2)}px`;
      });
    };
    // Type and padding shrink in proportion to the overflow; a few rounds settle it, since borders
    // and the widest words do not scale exactly linearly.
    let factor = 1;
    for (let round = 0; round < 6 && tooWide(table) && factor > floor; round++) {
      factor = Math.max(floor, factor * (room(table) / table.getBoundingClientRect().width) - 0.005);
      apply(factor);
    }
    if (!tooWide(table)) continue;
    const firstRow = table.rows[0];
    const spansColumns = cells.some((cell) => (cell as HTMLTableCellElement).colSpan > 1);
    const header = firstRow && !spansColumns && Array.from(firstRow.cells).every((cell) => cell.tagName === 'TH') ? firstRow : undefined;
    if (header) {
      // Stacked, at the theme's own type: each body cell is labelled with its column's header.
      apply(1);
      const labels = Array.from(header.cells, (cell) => (cell.textContent ?? '').trim());
      for (const row of Array.from(table.rows).slice(1)) {
        Array.from(row.cells).forEach((cell, column) => {
          if (labels[column]) cell.setAttribute('data-label', labels[column]!);
        });
      }
      table.classList.add('table-stacked');
      continue;
    }
    // Last resort: narrow the widest columns to a shared width so the table fits; only their cells
    // may break a word.
    if (!firstRow || spansColumns) {
      table.classList.add('table-break-words');
      continue;
    }
    const plan = () => {
      const widths = Array.from(firstRow.cells, (cell) => cell.getBoundingClientRect().width);
      const frame = table.getBoundingClientRect().width - widths.reduce((sum, w) => sum + w, 0);
      const budget = room(table) - frame;
      const sorted = [...widths].sort((a, b) => b - a);
      // Water level L: sum(min(w, L)) = budget.
      let level = 0;
      for (let k = 1; k <= sorted.length; k++) {
        const rest = sorted.slice(k).reduce((sum, w) => sum + w, 0);
        level = (budget - rest) / k;
        if (k === sorted.length || level >= sorted[k]!) break;
      }
      return { widths, level };
    };
    const colgroup = document.createElement('colgroup');
    const narrow = ({ widths, level }: ReturnType<typeof plan>) => {
      colgroup.replaceChildren();
      for (const cell of Array.from(table.querySelectorAll('.table-break-words'))) cell.classList.remove('table-break-words');
      widths.forEach((w, column) => {
        const col = document.createElement('col');
        col.style.width = `${Math.max(1, Math.min(w, level)).toFixed(2)}px`;
        colgroup.appendChild(col);
        if (w > level) for (const row of Array.from(table.rows)) row.cells[column]?.classList.add('table-break-words');
      });
      table.insertBefore(colgroup, table.firstChild);
      table.style.tableLayout = 'fixed';
    };
    const unnarrow = () => {
      colgroup.remove();
      table.style.tableLayout = '';
      for (const cell of Array.from(table.querySelectorAll('.table-break-words'))) cell.classList.remove('table-break-words');
    };
    /** Cells with a word (letters, digits) drawn on more than one line. */
    const brokenWords = () => {
      const range = document.createRange();
      const broken = (cell: Element) => {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
          for (const match of node.data.matchAll(/[\p{L}\p{N}][\p{L}\p{N}.,%]*/gu)) {
            range.setStart(node, match.index!);
            range.setEnd(node, match.index! + match[0].length);
            if (new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size > 1) return true;
          }
        }
        return false;
      };
      return cells.filter(broken).length;
    };
    // Smaller type is kept only if it spares cells from breaking words: a single long URL breaks anyway,
    // and the rest of its table keeps the theme's type.
    narrow(plan());
    const brokenAtFloor = brokenWords();
    unnarrow();
    apply(1);
    narrow(plan());
    if (brokenWords() > brokenAtFloor) {
      unnarrow();
      apply(factor);
      narrow(plan());
    }
  }
  const html = changed ? inner.innerHTML : null;
  root.replaceChildren();
  return html;

  /**
   * Lets identifiers break where a reader expects: a <wbr> after `_`, `.`, `/` or `-` with a letter
   * on one side (us-|east, example.|com, never 0.1 or 2026-11-26), and before a capital that follows
   * a small letter (max|Concurrent). At most 2,000 in a table: a real table needs a few dozen, and
   * tens of thousands (a cell of `aB` × 20,000) made its layout five times slower; a text past the
   * bound is left whole, for the stacked form to wrap. Inside the function (not beside it): the page
   * runs this function's own source.
   */
  function breakIdentifiers(within: HTMLElement[]): void {
    const breakPoint = /(?<=\p{L}[_./-])(?=[\p{L}\p{N}])|(?<=[\p{L}\p{N}][_./-])(?=\p{L})|(?<=\p{Ll})(?=\p{Lu})/gu;
    let budget = 2000;
    for (const cell of within) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      const texts: Text[] = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
      for (const text of texts) {
        const pieces = text.data.split(breakPoint);
        if (pieces.length === 1 || pieces.length - 1 > budget) continue;
        budget -= pieces.length - 1;
        const fragment = document.createDocumentFragment();
        pieces.forEach((piece, index) => {
          if (index > 0) fragment.appendChild(document.createElement('wbr'));
          fragment.appendChild(document.createTextNode(piece));
        });
        text.replaceWith(fragment);
      }
    }
  }
}
