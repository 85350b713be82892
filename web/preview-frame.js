// The live preview: the cards in an iframe that holds the renderer's own document (same fonts,
// base CSS and theme CSS). The frame is sandboxed without scripts; this page swaps the cards
// inside it directly (same origin), which is far faster than loading a new document per change.
// The frame is sized to its cards at 100 % and scaled as a whole, so the cards lay out exactly as
// in the renderer at any zoom.

/** Page-side spacing around and between cards; never touches the cards themselves. */
const frameStyle = `
  #cards { box-sizing: border-box; width: max-content; gap: 24px; padding: 24px; align-items: center; filter: drop-shadow(0 6px 16px rgba(16, 24, 40, 0.16)); }
  #cards > img.preview-image { display: block; }
`;

export class PreviewFrame {
  constructor(frame, stage, scroller) {
    this.frame = frame;
    this.stage = stage;
    this.scroller = scroller;
    this.zoom = 'fit';
    this.ready = new Promise((resolve) => {
      const onLoad = () => {
        const doc = frame.contentDocument;
        if (!doc?.getElementById('cards')) return;
        const style = doc.createElement('style');
        style.textContent = frameStyle;
        doc.head.append(style);
        resolve(doc);
      };
      frame.addEventListener('load', onLoad);
      // The frame may have finished loading before this script ran.
      if (frame.contentDocument?.readyState === 'complete') onLoad();
    });
    new ResizeObserver(() => this.fit()).observe(scroller);
  }

  /** Replaces the cards; resolves once they are laid out and the frame has its new size. */
  async show(cards) {
    const doc = await this.ready;
    const root = doc.getElementById('cards');
    const html = cards.map((card) => ('html' in card ? card.html : imageCard(doc, card))).join('');
    root.innerHTML = html;
    this.fit();
    // Fonts a new character needs load after layout; the size is measured again when they are in,
    // and when each image the service links to (rather than inlines) has arrived.
    doc.fonts.ready.then(() => this.fit());
    for (const img of root.querySelectorAll('img')) {
      if (!img.complete) img.addEventListener('load', () => this.fit(), { once: true });
    }
  }

  setZoom(zoom) {
    this.zoom = zoom;
    this.fit();
  }

  /** Sizes the frame to its cards and scales it to the available width (never above 100 %). */
  fit() {
    const doc = this.frame.contentDocument;
    const root = doc?.getElementById('cards');
    if (!root) return;
    const width = Math.ceil(root.scrollWidth);
    const height = Math.ceil(root.scrollHeight);
    const style = getComputedStyle(this.scroller);
    const available = this.scroller.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const scale = this.zoom === 'fit' ? Math.min(1, available / width) : 1;
    this.frame.style.width = `${width}px`;
    this.frame.style.height = `${height}px`;
    this.frame.style.transform = `scale(${scale})`;
    this.stage.style.width = `${Math.ceil(width * scale)}px`;
    this.stage.style.height = `${Math.ceil(height * scale)}px`;
    this.scale = scale;
  }

  /** Number of cards shown. */
  cardCount() {
    return this.frame.contentDocument?.getElementById('cards')?.children.length ?? 0;
  }
}

/** A card the service sent as an image, drawn at its size in CSS px. */
function imageCard(doc, card) {
  const img = doc.createElement('img');
  img.className = 'preview-image';
  img.alt = '';
  img.src = card.image;
  img.width = card.width;
  img.height = card.height;
  return img.outerHTML;
}
