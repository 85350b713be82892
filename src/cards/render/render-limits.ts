// What one request may cost the browser: the device pixels of all its cards, the bytes of all its
// images, and the time one step of drawing may take. A short request can ask for a great deal
// (a 700-byte document once became a 148 MB PNG; 50 cards of 2,000×4,000 px at scale 3 stored
// 54 MB), so each is checked as soon as it can be known: pixels once the cards are laid out and
// before any is captured, bytes as each card is captured, time on every step. README.md "Limits"
// lists the values; src/config.ts reads them (MAX_REQUEST_MEGAPIXELS, MAX_REQUEST_MB,
// CARD_RENDER_TIMEOUT_MS).
import { CardError } from '../errors.js';
import { type BrowserWork, RendererStalled, whyNotDrawing } from './drawing-progress.js';
import type { CardBox } from './render-page.js';

export interface RenderLimits {
  /** Device pixels of all the cards of one request together. */
  maxPixels: number;
  /** Bytes of all the images of one request together. */
  maxBytes: number;
  /** Longest the layout of a document, or the capture of one card, may take, in ms. */
  stepTimeoutMs: number;
}

export const defaultRenderLimits: RenderLimits = { maxPixels: 200_000_000, maxBytes: 64 * 1024 * 1024, stepTimeoutMs: 20_000 };

export const millions = (pixels: number) => (pixels / 1_000_000).toLocaleString('en-US', { maximumFractionDigits: pixels < 10_000_000 ? 1 : 0 });
const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 });

/** The device pixels of a card drawn at `deviceScale`, as its image will have them. */
const devicePixels = (box: CardBox, deviceScale: number): number => Math.round(box.width * deviceScale) * Math.round(box.height * deviceScale);

/**
 * Refuses laid-out cards whose images would together have more than `limits.maxPixels` device
 * pixels; returns their total.
 */
export function checkPixels(boxes: readonly CardBox[], deviceScale: number, limits: RenderLimits, asked: { scale: number }): number {
  const total = boxes.reduce((sum, box) => sum + devicePixels(box, deviceScale), 0);
  if (total <= limits.maxPixels) return total;
  const cards = boxes.length === 1 ? 'The card would have' : `The ${boxes.length} cards would total`;
  throw new CardError(
    'content_too_large',
    `${cards} ${millions(total)} million device pixels at scale ${asked.scale}; the limit is ${millions(limits.maxPixels)} million per request. ` +
      'Use a smaller size or scale, or split the Markdown into several requests.',
  );
}

/** Counts the bytes of a request's images as they are captured; refuses the one that goes over. */
export class ByteBudget {
  private total = 0;

  constructor(
    private readonly limits: RenderLimits,
    private readonly cards: number,
  ) {}

  add(bytes: number, card: number): void {
    this.total += bytes;
    if (this.total <= this.limits.maxBytes) return;
    const where = this.cards === 1 ? `The image is ${megabytes(this.total)} MB` : `The images reached ${megabytes(this.total)} MB with card ${card} of ${this.cards}`;
    throw new CardError(
      'content_too_large',
      `${where}; the limit is ${megabytes(this.limits.maxBytes)} MB per request. ` +
        'Use format "jpeg" or "webp", a smaller scale, or fewer cards per request.',
    );
  }
}

/**
 * Settles with `step`, or fails once it has taken `limits.stepTimeoutMs`. A card that takes that
 * long while the browser works on it is one the browser struggles to draw: a 400, and the time is
 * not spent on it; the page may still be drawing, so the error tells the pool to close it rather
 * than clear it. But when the step waits for the browser of `work` (its page) and the browser is
 * not working on anything at that time, a renderer or the browser is frozen: the step fails with
 * RendererStalled, a fault of the machine that the pool answers by closing the page and trying
 * the request once more on a fresh one (drawing-progress.ts). A step that settles while this is
 * looked at settles so.
 */
export function withinStepTime<T>(step: Promise<T>, limits: RenderLimits, what: string, work?: BrowserWork): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(async () => {
      step.catch(() => {});
      const stall = work === undefined ? undefined : await whyNotDrawing(work);
      if (stall !== undefined) {
        reject(new RendererStalled(what, limits.stepTimeoutMs, stall));
        return;
      }
      reject(
        new CardError(
          'content_too_large',
          `${what} took longer than ${limits.stepTimeoutMs.toLocaleString('en-US')} ms and was stopped. ` +
            'Heavy CSS effects (stacked or repeating gradients, filters, shadows, blend modes) or very large images are the likely cause; ' +
            'simplify them, or use a smaller size or scale.',
          { pageLeftBusy: true },
        ),
      );
    }, limits.stepTimeoutMs);
    step.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
