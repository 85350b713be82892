// Pagination that runs inside the render page, in one evaluation per request: lays the whole
// document out once at the card's content width, reads the geometry of its blocks, lines and table
// rows, chooses the breaks like a typesetter, and builds every fixed-height card into #cards.
//
// This function is sent to the page as source text (see paginate.ts), so it must be
// self-contained: no imports, no references to anything outside its own body, no timers (the page
// runs with JavaScript off; only DOM promises such as fonts.ready and img.decode() settle).

export interface PaginationInput {
  /** An empty card of the request's theme, exactly `height` tall. */
  cardTemplate: string;
  /** The same card growing with its content: the measuring frame. */
  measureTemplate: string;
  /** Sanitized HTML of the whole document. */
  contentHtml: string;
  /** autoSplit paginates the whole document; hrSplit starts a new card at every top-level <hr>. */
  splitMode: 'autoSplit' | 'hrSplit';
  /** hrSplit with overHiddenMode: one clipped card per section, no pagination inside it. */
  clipSections: boolean;
  /** Cards beyond this are only counted, not built. */
  maxCards: number;
  /** Also return what each card holds, for checks of the result. */
  report: boolean;
}

export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface CardReport {
  /** Text of the card, without repeated table headers. */
  text: string;
  html: string;
  /** The card's content area, in px from the card's top edge. */
  contentTop: number;
  contentBottom: number;
  /** The line box of every text fragment, and every image, in px from the card's top-left corner. */
  boxes: { top: number; bottom: number; left: number; right: number; kind: string; text: string }[];
  /** Tag of the heading that holds the card's last text or image, or "" when it is not a heading. */
  endsInHeading: string;
  /** The page label drawn in the footer. */
  label: string;
}

export interface PaginationReport {
  documentText: string;
  /** Height available to content on one card, in px. */
  available: number;
  cards: CardReport[];
}

export interface PaginationResult {
  /** The cards, in order, as laid out in the page (empty when there are more than `maxCards`). */
  boxes: PageBox[];
  /** How many cards the content needs. */
  needed: number;
  report?: PaginationReport;
}

export async function paginateInPage(input: PaginationInput): Promise<PaginationResult> {
  interface Line {
    boxTop: number;
    boxBottom: number;
    inkTop: number;
    inkBottom: number;
  }
  interface Run {
    container: Element;
    nodes: Node[];
    lines: Line[];
    atoms?: Atom[];
  }
  interface Atom {
    node: Node;
    offset: number;
    length: number;
    element?: Element;
  }
  interface Piece {
    kind: 'block' | 'line' | 'row';
    el: Element;
    /** Elements that a break between this piece and a neighbour with the same ancestors splits. */
    path: Element[];
    top: number;
    bottom: number;
    heading: boolean;
    rule: boolean;
    run?: Run;
    line?: number;
    table?: HTMLTableElement;
    row?: number;
    rowCount?: number;
  }
  interface Point {
    node: Node;
    offset: number;
  }

  const root = document.getElementById('cards')!;
  root.innerHTML = input.measureTemplate + input.cardTemplate;
  const measureCard = root.children[0] as HTMLElement;
  const probe = root.children[1] as HTMLElement;
  const inner = measureCard.querySelector('.card-content-inner') as HTMLElement;
  inner.innerHTML = input.contentHtml;
  // A long label, so the footer's font and size are those of the real cards.
  probe.querySelector('.page')!.textContent = '88/88';
  void root.offsetHeight;
  await document.fonts.ready;
  await Promise.all(Array.from(inner.querySelectorAll('img'), (img) => img.decode().catch(() => undefined)));

  const px = (value: string) => parseFloat(value) || 0;
  const styleOf = (el: Element) => getComputedStyle(el);
  const range = document.createRange();

  /** Bottom edge that a card's `.card-content-inner` may reach, in page coordinates. */
  const contentLimit = (card: Element) => {
    const content = card.querySelector('.card-content')!;
    const cs = styleOf(content);
    const box = content.getBoundingClientRect();
    const innerStyle = styleOf(card.querySelector('.card-content-inner')!);
    return {
      top: box.top + px(cs.borderTopWidth) + px(cs.paddingTop),
      bottom: box.bottom - px(cs.borderBottomWidth) - px(cs.paddingBottom) - px(innerStyle.marginBottom),
    };
  };
  const available = (() => {
    const limit = contentLimit(probe);
    const probeInner = probe.querySelector('.card-content-inner')!;
    const is = styleOf(probeInner);
    const innerTop = probeInner.getBoundingClientRect().top;
    const chrome = px(is.paddingTop) + px(is.paddingBottom) + px(is.borderTopWidth) + px(is.borderBottomWidth);
    return Math.max(1, limit.bottom - innerTop - chrome);
  })();
  const template = probe.cloneNode(true) as HTMLElement;
  template.querySelector('.card-content-inner')!.replaceChildren();
  probe.remove();

  const documentText = input.report ? inner.textContent ?? '' : '';

  // --- Unbreakable content taller than a card is scaled down to fit one -------------------------
  const verticalChrome = (el: Element, upTo: Element) => {
    let sum = 0;
    for (let node: Element | null = el; node && node !== upTo; node = node.parentElement) {
      const cs = styleOf(node);
      sum += px(cs.paddingTop) + px(cs.paddingBottom) + px(cs.borderTopWidth) + px(cs.borderBottomWidth);
    }
    return sum;
  };
  let scaledImages = false;
  // One clipped card per section (hrSplit with overHiddenMode) shows content as it is: nothing scaled.
  const fitToCard = !input.clipSections;
  for (const img of fitToCard ? Array.from(inner.querySelectorAll('img')) : []) {
    const height = img.getBoundingClientRect().height;
    const room = Math.floor(available - verticalChrome(img.parentElement!, inner) - 1);
    if (height > room && room > 0) {
      img.style.width = 'auto';
      img.style.height = 'auto';
      img.style.maxWidth = '100%';
      img.style.maxHeight = `${room}px`;
      scaledImages = true;
    }
  }
  if (scaledImages) void inner.offsetHeight;

  // --- Pieces: the smallest parts of the document a break may fall between ----------------------
  const atomicTags = new Set(['IMG', 'SVG', 'VIDEO', 'CANVAS', 'FIGURE', 'MATH', 'IFRAME', 'OBJECT', 'HR', 'INPUT']);
  const containerDisplays = new Set(['block', 'list-item', 'flow-root']);
  const isHeading = (el: Element) => /^H[1-6]$/.test(el.tagName);
  const preformatted = (node: Node) => {
    const parent = node.nodeType === Node.TEXT_NODE ? node.parentElement : (node as Element);
    return parent ? /^(pre|pre-wrap|break-spaces|pre-line)$/.test(styleOf(parent).whiteSpace) : false;
  };
  const meaningfulText = (text: Text) => (preformatted(text) ? text.data.length > 0 : /\S/.test(text.data));
  const lineHeights = new Map<Element, number>();
  const lineHeightOf = (el: Element) => {
    let value = lineHeights.get(el);
    if (value === undefined) {
      value = px(styleOf(el).lineHeight);
      lineHeights.set(el, value);
    }
    return value;
  };
  /** An inline-level box that is laid out whole (an image, an inline-block, a formula): never split inside. */
  const isInlineAtom = (el: Element, display: string) =>
    (display !== 'inline' && display !== 'contents') || atomicTags.has(el.tagName.toUpperCase());

  function linePieces(container: Element, nodes: Node[], path: Element[], out: Piece[]): void {
    const rects: { top: number; bottom: number; lead: number }[] = [];
    const gather = (node: Node) => {
      if (node.nodeType === Node.TEXT_NODE) {
        const text = node as Text;
        if (!text.data) return;
        range.selectNodeContents(text);
        const lineHeight = lineHeightOf(text.parentElement!);
        for (const r of Array.from(range.getClientRects())) {
          if (r.width <= 0 || r.height <= 0) continue;
          rects.push({ top: r.top, bottom: r.bottom, lead: Math.max(0, (lineHeight - r.height) / 2) });
        }
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        const el = node as Element;
        const cs = styleOf(el);
        if (cs.display === 'none') return;
        if (isInlineAtom(el, cs.display)) {
          const r = el.getBoundingClientRect();
          if (r.height > 0) rects.push({ top: r.top - px(cs.marginTop), bottom: r.bottom + px(cs.marginBottom), lead: 0 });
        } else {
          for (const child of Array.from(el.childNodes)) gather(child);
        }
      }
    };
    for (const node of nodes) gather(node);
    if (rects.length === 0) return;
    rects.sort((a, b) => a.top - b.top);
    const lines: Line[] = [];
    for (const r of rects) {
      const last = lines[lines.length - 1];
      const overlap = last ? Math.min(last.inkBottom, r.bottom) - Math.max(last.inkTop, r.top) : -1;
      if (last && overlap > 0.5 * Math.min(last.inkBottom - last.inkTop, r.bottom - r.top)) {
        last.inkTop = Math.min(last.inkTop, r.top);
        last.inkBottom = Math.max(last.inkBottom, r.bottom);
        last.boxTop = Math.min(last.boxTop, r.top - r.lead);
        last.boxBottom = Math.max(last.boxBottom, r.bottom + r.lead);
      } else {
        lines.push({ inkTop: r.top, inkBottom: r.bottom, boxTop: r.top - r.lead, boxBottom: r.bottom + r.lead });
      }
    }
    const run: Run = { container, nodes, lines };
    // Where one line box ends and the next begins; kept between the two lines' ink.
    const boundary = (j: number) => {
      const above = lines[j - 1]!;
      const below = lines[j]!;
      if (above.inkBottom > below.inkTop) return (above.inkBottom + below.inkTop) / 2;
      return Math.min(Math.max(below.boxTop, above.inkBottom), below.inkTop);
    };
    lines.forEach((line, j) => {
      out.push({
        kind: 'line',
        el: container,
        path,
        top: j === 0 ? line.boxTop : boundary(j),
        bottom: j === lines.length - 1 ? line.boxBottom : boundary(j + 1),
        heading: false,
        rule: false,
        run,
        line: j,
      });
    });
  }

  let tableCount = 0;
  function tablePieces(table: HTMLTableElement, path: Element[], out: Piece[]): boolean {
    const rows = Array.from(table.tBodies).flatMap((body) => Array.from(body.rows));
    if (rows.length < 2) return false;
    table.setAttribute('data-split-table', String(tableCount++));
    const box = table.getBoundingClientRect();
    const tops = rows.map((row) => row.getBoundingClientRect().top);
    rows.forEach((row, i) => {
      out.push({
        kind: 'row',
        el: row,
        path: [...path, table],
        top: i === 0 ? box.top : tops[i]!,
        bottom: i === rows.length - 1 ? box.bottom : tops[i + 1]!,
        heading: false,
        rule: false,
        table,
        row: i,
        rowCount: rows.length,
      });
    });
    return true;
  }

  function blockPieces(el: Element, cs: CSSStyleDeclaration, path: Element[], out: Piece[]): void {
    const first = out.length;
    const tag = el.tagName.toUpperCase();
    let split = false;
    if (tag === 'TABLE' || cs.display === 'table') {
      split = el instanceof HTMLTableElement && tablePieces(el, path, out);
    } else if (!isHeading(el) && !atomicTags.has(tag) && !el.classList.contains('katex-display') && containerDisplays.has(cs.display)) {
      collect(el, [...path, el], out);
      split = out.length > first;
    }
    const box = el.getBoundingClientRect();
    if (!split) {
      out.push({ kind: 'block', el, path, top: box.top, bottom: box.bottom, heading: isHeading(el), rule: tag === 'HR' && path.length === 0 });
      return;
    }
    // A container's own padding and border travel with its first and last pieces.
    out[first]!.top = Math.min(out[first]!.top, box.top);
    out[out.length - 1]!.bottom = Math.max(out[out.length - 1]!.bottom, box.bottom);
  }

  function collect(container: Element, path: Element[], out: Piece[]): void {
    let run: Node[] = [];
    const flush = () => {
      const meaningful = run.some((node) => (node.nodeType === Node.TEXT_NODE ? meaningfulText(node as Text) : true));
      if (meaningful) linePieces(container, run, path, out);
      run = [];
    };
    for (const child of Array.from(container.childNodes)) {
      if (child.nodeType === Node.TEXT_NODE) {
        run.push(child);
        continue;
      }
      if (child.nodeType !== Node.ELEMENT_NODE) continue;
      const el = child as Element;
      const cs = styleOf(el);
      if (cs.display === 'none' || cs.position === 'absolute' || cs.position === 'fixed' || cs.float !== 'none') continue;
      // A heading stays a heading (kept with what follows) even when a theme makes it an inline-block.
      const inline = cs.display.startsWith('inline') || cs.display === 'contents' || cs.display.startsWith('ruby');
      if (inline && !isHeading(el)) {
        run.push(el);
        continue;
      }
      flush();
      blockPieces(el, cs, path, out);
    }
    flush();
  }

  let pieces: Piece[] = [];
  collect(inner, [], pieces);
  // A block that cannot be broken (a formula, a figure, columns) and is taller than a card is
  // scaled down to fit one, like a picture. A transform keeps its line breaks (zoom would reflow
  // its text into a wider measure), and a negative bottom margin gives back the height it no longer
  // uses; the block is never split, so that margin stays exact. Then everything is measured again.
  const scaleFactors = new Map<HTMLElement, number>();
  for (const piece of fitToCard ? pieces : []) {
    if (piece.kind !== 'block' || piece.rule) continue;
    const target = piece.el as HTMLElement;
    const height = piece.bottom - piece.top;
    const room = available - verticalChrome(target.parentElement!, inner) - 1;
    if (height > room && room > 0) scaleFactors.set(target, Math.min(scaleFactors.get(target) ?? 1, room / height));
  }
  for (const [target, factor] of scaleFactors) {
    const scale = Math.floor(factor * 1000) / 1000;
    const height = target.offsetHeight;
    target.style.transformOrigin = 'top center';
    target.style.transform = `scale(${scale})`;
    target.style.marginBottom = `${px(styleOf(target).marginBottom) - height * (1 - scale)}px`;
  }
  if (scaleFactors.size > 0) {
    pieces = [];
    collect(inner, [], pieces);
  }

  // --- Break candidates: candidate i is the position just before piece i -----------------------
  const sharedPath = (i: number) => {
    const a = pieces[i - 1]!.path;
    const b = pieces[i]!.path;
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return a.slice(0, n);
  };
  const openCost: number[] = [];
  const closeCost: number[] = [];
  const penalty: number[] = [];
  for (let i = 1; i < pieces.length; i++) {
    let open = 0;
    let close = 0;
    for (const el of sharedPath(i)) {
      const cs = styleOf(el);
      open += px(cs.paddingTop) + px(cs.borderTopWidth);
      close += px(cs.paddingBottom) + px(cs.borderBottomWidth);
      if (el instanceof HTMLTableElement && el.tHead) open += el.tHead.getBoundingClientRect().height;
    }
    openCost[i] = open;
    closeCost[i] = close;
    const before = pieces[i - 1]!;
    const after = pieces[i]!;
    const height = before.bottom - before.top;
    let cost = 0;
    // Never a heading last on a card, nor a heading with a single line under it.
    if (before.heading) cost = available * 4;
    if (before.kind === 'line' && before.line === 0 && after.run === before.run && pieces[i - 2]?.heading) cost = available * 2;
    // A single line (or row) left alone at the foot or head of a card: allowed, but only when the
    // alternative wastes more than about two and a half lines.
    const lonely = (count: number, index: number) => count >= 2 && (index === 1 || count - index === 1);
    if (before.kind === 'line' && after.kind === 'line' && before.run === after.run && lonely(after.run!.lines.length, after.line!)) {
      cost = Math.max(cost, 2.5 * height);
    }
    if (before.kind === 'row' && after.kind === 'row' && before.table === after.table && lonely(after.rowCount!, after.row!)) {
      cost = Math.max(cost, 2.5 * height);
    }
    penalty[i] = cost;
  }

  // --- DOM positions of breaks -------------------------------------------------------------------
  const indexOf = (node: Node) => Array.prototype.indexOf.call(node.parentNode!.childNodes, node) as number;
  const meaningfulBefore = (node: Node, offset: number) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = (node as Text).data.slice(0, offset);
      return preformatted(node) ? text.length > 0 : /\S/.test(text);
    }
    for (let i = 0; i < offset; i++) {
      const child = node.childNodes[i]!;
      if (child.nodeType === Node.ELEMENT_NODE) return true;
      if (child.nodeType === Node.TEXT_NODE && meaningfulText(child as Text)) return true;
    }
    return false;
  };
  /** The shallowest position equal to (node, offset): a break at the start of an element is a break before it. */
  const lift = (node: Node, offset: number): Point => {
    while (node !== inner && !meaningfulBefore(node, offset)) {
      offset = indexOf(node);
      node = node.parentNode!;
    }
    return { node, offset };
  };
  const atomsOf = (run: Run) => {
    if (run.atoms) return run.atoms;
    const atoms: Atom[] = [];
    const walk = (node: Node) => {
      if (node.nodeType === Node.TEXT_NODE) {
        const data = (node as Text).data;
        for (let i = 0; i < data.length; i++) {
          const code = data.charCodeAt(i);
          if (code >= 0xdc00 && code <= 0xdfff) continue;
          if (/\s/.test(data[i]!)) continue;
          atoms.push({ node, offset: i, length: code >= 0xd800 && code <= 0xdbff ? 2 : 1 });
        }
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        const el = node as Element;
        const display = styleOf(el).display;
        if (display === 'none') return;
        if (isInlineAtom(el, display)) atoms.push({ node: el.parentNode!, offset: indexOf(el), length: 0, element: el });
        else for (const child of Array.from(el.childNodes)) walk(child);
      }
    };
    for (const node of run.nodes) walk(node);
    run.atoms = atoms;
    return atoms;
  };
  const centreOf = (atom: Atom) => {
    let rect: DOMRect;
    if (atom.element) rect = atom.element.getBoundingClientRect();
    else {
      range.setStart(atom.node, atom.offset);
      range.setEnd(atom.node, atom.offset + atom.length);
      rect = range.getBoundingClientRect();
    }
    return rect.height > 0 ? (rect.top + rect.bottom) / 2 : undefined;
  };
  /** Position of the first character (or inline object) of line `line` of a run. */
  const linePoint = (run: Run, line: number): Point => {
    const atoms = atomsOf(run);
    const above = run.lines[line - 1]!;
    const below = run.lines[line]!;
    const split = (above.inkBottom + below.inkTop) / 2;
    const isBelow = (index: number) => {
      for (let k = index; k < atoms.length && k < index + 64; k++) {
        const centre = centreOf(atoms[k]!);
        if (centre !== undefined) return centre > split;
      }
      return true;
    };
    let low = 0;
    let high = atoms.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (isBelow(middle)) high = middle;
      else low = middle + 1;
    }
    const atom = atoms[Math.min(low, atoms.length - 1)]!;
    let offset = atom.offset;
    if (!atom.element && preformatted(atom.node)) {
      // In code, a line's indentation belongs to it: break just after the previous newline.
      const data = (atom.node as Text).data;
      let start = offset;
      while (start > 0 && (data[start - 1] === ' ' || data[start - 1] === '\t')) start--;
      if (start === 0 || data[start - 1] === '\n') offset = start;
    }
    return lift(atom.node, offset);
  };
  const points = new Map<number, Point>();
  const pointBefore = (i: number): Point => {
    let point = points.get(i);
    if (point) return point;
    const piece = pieces[i]!;
    if (piece.kind === 'line' && piece.line! > 0) point = linePoint(piece.run!, piece.line!);
    else {
      const target = piece.kind === 'line' ? piece.run!.nodes[0]! : piece.kind === 'row' && piece.row === 0 ? piece.table! : piece.el;
      point = lift(target.parentNode!, indexOf(target));
    }
    points.set(i, point);
    return point;
  };

  /** The last character of text before `point` inside `container`, without reading all of it. */
  const characterBefore = (point: Point, container: Node) => {
    let node: Node | null = point.node;
    if (node.nodeType === Node.TEXT_NODE && point.offset > 0) return (node as Text).data[point.offset - 1];
    // The node just before the point, then backwards in document order to the nearest text.
    let previous: Node | null = node.nodeType === Node.TEXT_NODE ? null : node.childNodes[point.offset - 1] ?? null;
    for (;;) {
      if (!previous) {
        while (node && node !== container && !node.previousSibling) node = node.parentNode;
        if (!node || node === container) return undefined;
        previous = node.previousSibling;
      }
      let leaf: Node = previous!;
      while (leaf.lastChild) leaf = leaf.lastChild;
      if (leaf.nodeType === Node.TEXT_NODE && (leaf as Text).data.length > 0) {
        const data = (leaf as Text).data;
        return data[data.length - 1];
      }
      node = leaf;
      previous = null;
    }
  };
  /** Breaks inside a wrapped line of code are costlier than breaks between its source lines. */
  const softWraps = new Map<number, boolean>();
  const penaltyAt = (i: number) => {
    const piece = pieces[i]!;
    if (piece.kind !== 'line' || piece.line === 0 || pieces[i - 1]!.run !== piece.run || !preformatted(piece.run!.container)) return penalty[i]!;
    let soft = softWraps.get(i);
    if (soft === undefined) {
      soft = characterBefore(pointBefore(i), piece.run!.container) !== '\n';
      softWraps.set(i, soft);
    }
    return soft ? Math.max(penalty[i]!, 2.5 * (pieces[i - 1]!.bottom - pieces[i - 1]!.top)) : penalty[i]!;
  };

  // --- Building cards ----------------------------------------------------------------------------
  const cards: HTMLElement[] = [];
  const markAncestors = (point: Point, attribute: string, on: boolean) => {
    for (let node: Node | null = point.node; node && node !== inner; node = node.parentNode) {
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      if (on) (node as Element).setAttribute(attribute, '');
      else (node as Element).removeAttribute(attribute);
    }
  };
  const innermost = (elements: Element[], selector: string) => elements.filter((el) => !el.querySelector(selector));

  function buildCard(start: Point, end: Point): HTMLElement {
    const card = template.cloneNode(true) as HTMLElement;
    const cardInner = card.querySelector('.card-content-inner')!;
    range.setStart(start.node, start.offset);
    range.setEnd(end.node, end.offset);
    markAncestors(start, 'data-split-from', true);
    markAncestors(end, 'data-split-to', true);
    let content: Node = range.cloneContents();
    // cloneContents leaves out the common ancestor and everything above it; put them back.
    for (let node: Node | null = range.commonAncestorContainer; node && node !== inner; node = node.parentNode) {
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      const shell = node.cloneNode(false);
      shell.appendChild(content);
      content = shell;
    }
    let codeLinesBefore = 0;
    const startPre = (start.node.nodeType === Node.ELEMENT_NODE ? (start.node as Element) : start.node.parentElement)?.closest('pre');
    if (startPre && inner.contains(startPre)) {
      const before = document.createRange();
      before.setStart(startPre, 0);
      before.setEnd(start.node, start.offset);
      codeLinesBefore = before.toString().split('\n').length - 1;
    }
    markAncestors(start, 'data-split-from', false);
    markAncestors(end, 'data-split-to', false);
    cardInner.appendChild(content);

    // Elements cut by a break: mark them for themes, and continue them the way a reader expects.
    const continued = Array.from(cardInner.querySelectorAll('[data-split-from]'));
    for (const el of continued) {
      el.removeAttribute('data-split-from');
      el.classList.add('split-continued');
      if (el.tagName === 'OL') {
        const first = Array.from(el.children).find((child) => child.tagName === 'LI');
        const index = first?.getAttribute('data-index');
        if (index) el.setAttribute('start', index);
      }
      if (el instanceof HTMLTableElement && !el.tHead) {
        const original = inner.querySelector(`table[data-split-table="${el.getAttribute('data-split-table')}"]`);
        const head = original instanceof HTMLTableElement ? original.tHead : null;
        if (head) {
          const repeated = head.cloneNode(true) as HTMLElement;
          repeated.setAttribute('data-split-repeat', '');
          el.insertBefore(repeated, el.tBodies[0] ?? null);
        }
      }
      if (el.tagName === 'PRE') (el as HTMLElement).style.setProperty('--split-first-line', String(codeLinesBefore + 1));
    }
    // Every part of a split table keeps the columns of the whole table.
    for (const table of Array.from(cardInner.querySelectorAll('table.split-continued, table[data-split-to]'))) {
      const original = inner.querySelector(`table[data-split-table="${table.getAttribute('data-split-table')}"]`);
      const firstRow = original instanceof HTMLTableElement ? original.rows[0] : undefined;
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
    // The first line of a continued paragraph is not a first line: no indent.
    for (const el of innermost(continued, '.split-continued')) (el as HTMLElement).style.textIndent = '0';
    const continues = Array.from(cardInner.querySelectorAll('[data-split-to]'));
    for (const el of continues) {
      el.removeAttribute('data-split-to');
      el.classList.add('split-continues');
    }
    // A justified paragraph cut after a line keeps that line justified, as it was in the whole text.
    for (const el of innermost(continues, '.split-continues')) {
      if (styleOf(el).textAlign === 'justify') (el as HTMLElement).style.textAlignLast = 'justify';
    }
    root.appendChild(card);
    return card;
  }

  const overflows = async (card: HTMLElement) => {
    await Promise.all(Array.from(card.querySelectorAll('img'), (img) => img.decode().catch(() => undefined)));
    const limit = contentLimit(card);
    return card.querySelector('.card-content-inner')!.getBoundingClientRect().bottom > limit.bottom + 0.5;
  };

  // --- Sections and pages ------------------------------------------------------------------------
  interface Section {
    from: number;
    to: number;
    start: Point;
    end: Point;
  }
  const sections: Section[] = [];
  if (input.splitMode === 'hrSplit') {
    let from = 0;
    let start: Point = { node: inner, offset: 0 };
    for (let i = 0; i <= pieces.length; i++) {
      const piece = pieces[i];
      if (piece && !piece.rule) continue;
      const end: Point = piece ? { node: inner, offset: indexOf(piece.el) } : { node: inner, offset: inner.childNodes.length };
      if (i > from) sections.push({ from, to: i, start, end });
      from = i + 1;
      if (piece) start = { node: inner, offset: indexOf(piece.el) + 1 };
    }
  } else if (pieces.length > 0) {
    sections.push({ from: 0, to: pieces.length, start: { node: inner, offset: 0 }, end: { node: inner, offset: inner.childNodes.length } });
  }

  const heightOf = (section: Section, s: number, c: number) =>
    pieces[c - 1]!.bottom - pieces[s]!.top + (s > section.from ? openCost[s]! : 0) + (c < section.to ? closeCost[c]! : 0);

  /** The best break after piece `s`, not later than candidate `last`. */
  const choose = (section: Section, s: number, last: number) => {
    let best = -1;
    let bestScore = Infinity;
    for (let c = s + 1; c <= last; c++) {
      if (pieces[c - 1]!.bottom - pieces[s]!.top > available + 0.5) break;
      // A rule at a break is dropped, not drawn at the foot or head of a card.
      if (c < section.to && pieces[c - 1]!.rule) continue;
      const height = heightOf(section, s, c);
      if (height > available + 0.5) continue;
      const score = c === section.to ? 0 : available - height + penaltyAt(c);
      if (score <= bestScore) {
        best = c;
        bestScore = score;
      }
    }
    return best > s ? best : s + 1;
  };

  let needed = 0;
  for (const section of sections) {
    if (input.clipSections) {
      needed++;
      if (needed <= input.maxCards) cards.push(buildCard(section.start, section.end));
      continue;
    }
    let s = section.from;
    while (s < section.to) {
      while (s < section.to && pieces[s]!.rule) s++;
      if (s >= section.to) break;
      let c = choose(section, s, section.to);
      needed++;
      if (needed <= input.maxCards) {
        const startPoint = s === section.from ? section.start : pointBefore(s);
        for (;;) {
          const card = buildCard(startPoint, c === section.to ? section.end : pointBefore(c));
          if (c === s + 1 || !(await overflows(card))) {
            cards.push(card);
            break;
          }
          // The estimate was short of the real card: break one candidate earlier.
          card.remove();
          c = choose(section, s, c - 1);
        }
      }
      s = c;
    }
  }
  if (sections.length === 0) {
    needed = 1;
    cards.push(buildCard({ node: inner, offset: 0 }, { node: inner, offset: 0 }));
  }

  const report: PaginationReport | undefined = input.report ? { documentText, available, cards: [] } : undefined;
  measureCard.remove();
  if (needed > input.maxCards) {
    root.replaceChildren();
    return { boxes: [], needed, report };
  }
  cards.forEach((card, i) => {
    card.querySelector('.page')!.textContent = cards.length > 1 ? `${i + 1}/${cards.length}` : '';
  });
  void root.offsetHeight;
  await document.fonts.ready;

  const boxes = cards.map((card) => {
    const box = card.getBoundingClientRect();
    return { x: box.left + window.scrollX, y: box.top + window.scrollY, width: box.width, height: box.height };
  });
  if (report) for (const card of cards) report.cards.push(describeCard(card));
  return { boxes, needed, report };

  function describeCard(card: HTMLElement): CardReport {
    const { top: cardTop, left: cardLeft } = card.getBoundingClientRect();
    const cardInner = card.querySelector('.card-content-inner')!;
    const limit = contentLimit(card);
    const boxes: CardReport['boxes'] = [];
    let last: Node | undefined;
    const walker = document.createTreeWalker(cardInner, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === Node.TEXT_NODE) {
        if (!/\S/.test((node as Text).data)) continue;
        range.selectNodeContents(node);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0 && r.height > 0);
        if (rects.length === 0) continue;
        last = node;
        // The line box of the text (its line-height, centred on the glyphs' content area): what the
        // layout places, whereas the content area of a tall font may reach past it.
        // Text inside a block scaled down to fit the card is reported as drawn: its glyphs' boxes.
        const scaled = node.parentElement!.closest('[style*="transform"]') !== null;
        const lineHeight = scaled ? 0 : lineHeightOf(node.parentElement!);
        for (const r of rects) {
          const centre = (r.top + r.bottom) / 2 - cardTop;
          const half = lineHeight > 0 ? lineHeight / 2 : r.height / 2;
          boxes.push({ top: centre - half, bottom: centre + half, left: r.left - cardLeft, right: r.right - cardLeft, kind: 'text', text: (node as Text).data.slice(0, 40) });
        }
      } else if ((node as Element).tagName === 'IMG') {
        const r = (node as Element).getBoundingClientRect();
        last = node;
        boxes.push({ top: r.top - cardTop, bottom: r.bottom - cardTop, left: r.left - cardLeft, right: r.right - cardLeft, kind: 'img', text: '' });
      }
    }
    const lastElement = last ? (last.nodeType === Node.ELEMENT_NODE ? (last as Element) : last.parentElement) : null;
    const heading = lastElement?.closest('h1, h2, h3, h4, h5, h6');
    const copy = cardInner.cloneNode(true) as Element;
    for (const repeated of Array.from(copy.querySelectorAll('[data-split-repeat]'))) repeated.remove();
    return {
      text: copy.textContent ?? '',
      html: cardInner.innerHTML,
      contentTop: limit.top - cardTop,
      contentBottom: limit.bottom - cardTop,
      boxes,
      endsInHeading: heading && cardInner.contains(heading) ? heading.tagName : '',
      label: card.querySelector('.page')?.textContent ?? '',
    };
  }
}
