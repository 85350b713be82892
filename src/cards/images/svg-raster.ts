// SVG images become PNG here, on the server, before any card shows them: Chromium is never handed
// an SVG. An SVG is a document, not a picture: a 1.7 KB file of nested <use> elements once held
// two render pages for 200 s. libvips (sharp) draws it with librsvg instead, under bounds of its
// own: input bytes, drawn elements and output pixels, checked before; time, by drawing in a short
// process of its own (svg-raster-process.ts, started by the drawing host: svg-drawing-host.ts)
// that is killed at the limit, since librsvg cannot be interrupted (stacked filters drew for minutes, past sharp's own timeout). librsvg loads nothing
// outside the file when it is given bytes without a base URL; an SVG that refers to anything
// outside itself is refused before it is drawn all the same.
//
// A drawing process costs some 70 MB and, while it draws, a core: an SvgRasterizer (one per core,
// made by createCards) draws at most svgLimits.concurrentDrawings at once for requests and
// svgLimits.concurrentPreviewDrawings for previews, whatever the number of documents and images
// asking, and a drawing whose request is cancelled (its deadline) is killed at once. Previews (no
// key needed) have their own, as they have their own render pages: SVGs of previews that take 5 s
// each once held every drawing, and a generate request with an SVG waited 4 to 11 s behind them.
import os from 'node:os';
import pLimit, { type LimitFunction } from 'p-limit';
import { sharp } from '../../sharp.js';
import { RemoteImageRefused, type FetchedImage } from './remote-image-fetcher.js';
import { SvgDrawingHost } from './svg-drawing-host.js';
import type { RenderLane } from '../render/renderer.js';

export const svgLimits = {
  /** Largest SVG converted, in bytes. */
  maxBytes: 2 * 1024 * 1024,
  /** Most pixels of the PNG made from one SVG. */
  maxPixels: 8_000_000,
  /** Longest one conversion may take. */
  timeoutSeconds: 5,
  /**
   * Most elements drawn, counting every element each <use> repeats: a few nested <use> repeat a
   * shape millions of times (librsvg stops only at 500,000, after some 20 s of drawing here).
   */
  maxDrawnElements: 50_000,
  /**
   * Deepest chain of elements and the elements each <use> repeats, counted from the root: librsvg's
   * XML parser stops at 256 nested elements, and a chain of <use> as long as the file drew for
   * seconds (and overflowed the count's stack here).
   */
  maxDepth: 1000,
  /** SVGs of requests drawn at once in one service process (each in a process of its own): a core each, at most 4. */
  concurrentDrawings: Math.max(1, Math.min(4, os.availableParallelism())),
  /** SVGs of previews drawn at once, besides those of requests. */
  concurrentPreviewDrawings: 1,
} as const;

/** Drawn at twice its own size, so it stays sharp on cards captured at scale 2. */
const pixelsPerCssPx = 2;

/** Where an SVG names something to load: href / xlink:href / src / url() / @import. */
const reference = String.raw`(?:\b(?:href|src)\s*=\s*["']?|url\(\s*["']?|@import\s+["']?)\s*`;

/** A reference to anything but an element of the file or a data: URL. */
const externalReference = new RegExp(`${reference}(?!#|data:)([^"'\\s)>]+)`, 'i');

/**
 * A data: URL that is not declared a raster image: librsvg draws one declared SVG, or declared
 * nothing (it sniffs the bytes), as an SVG inside the SVG, out of reach of the count below.
 */
const nonRasterDataUrl = new RegExp(`${reference}data:(?!\\s*image/(?:png|jpe?g|gif|webp)\\s*[;,])`, 'i');

/**
 * An entity declared to hold markup (written, or as a character reference): each use of it adds
 * elements the count below never sees, a <use> bomb the scan reads as text.
 */
const markupEntity = /<!ENTITY\s[^>"']*(?:"[^"]*(?:<|&#0*60;|&#x0*3c;)[^"]*"|'[^']*(?:<|&#0*60;|&#x0*3c;)[^']*')/i;

/** Comments and CDATA sections: text to the parser, so no elements for the count below. */
const notMarkup = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>/g;

/** How many SVGs one core draws at once, in each lane (each in a process of its own). */
export interface SvgDrawingLimits {
  concurrentDrawings: number;
  concurrentPreviewDrawings: number;
}

/** Draws SVG images as PNG, at most so many at once in each lane (see above); one per core. */
export class SvgRasterizer {
  private readonly drawing: Record<RenderLane, LimitFunction>;
  /** Aborted by close(): every drawing under way is killed, every waiting one refused. */
  private readonly closing = new AbortController();
  /** Starts the drawing processes, so the service never forks itself for one (svg-drawing-host.ts). */
  private readonly host = new SvgDrawingHost();

  constructor(readonly limits: SvgDrawingLimits = svgLimits) {
    this.drawing = { requests: pLimit(limits.concurrentDrawings), previews: pLimit(limits.concurrentPreviewDrawings) };
  }

  /** Process id of the drawing host, the parent of every drawing process (for tests and operators). */
  get drawingHostPid(): number | undefined {
    return this.host.pid;
  }

  /** The image as a PNG when it is an SVG (within svgLimits); any other image as it is. */
  async rasterizeIfSvg(image: FetchedImage, signal?: AbortSignal, lane: RenderLane = 'requests'): Promise<FetchedImage> {
    return image.mimeType === 'image/svg+xml' ? this.rasterize(image.bytes, signal, lane) : image;
  }

  /**
   * Draws an SVG as a PNG at twice its own size (less when that is over svgLimits.maxPixels); once
   * `signal` aborts, a drawing waiting for its turn is not started and one under way is killed.
   * `lane` says whose turns it waits for: the requests' or the previews'.
   */
  async rasterize(svg: Buffer, signal?: AbortSignal, lane: RenderLane = 'requests'): Promise<FetchedImage> {
    const { width, density } = await checkSvg(svg);
    const drawingSignal = signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
    const options = { density, limitInputPixels: Math.ceil(svgLimits.maxPixels * 1.01), timeoutMs: svgLimits.timeoutSeconds * 1000 };
    const png = await this.drawing[lane](() =>
      this.host.draw(svg, options, drawingSignal).catch((error: unknown) => {
        if (drawingSignal.aborted) throw drawingSignal.reason;
        throw new RemoteImageRefused(`the SVG image could not be drawn: ${(error as Error).message}`);
      }),
    );
    const { width: pixelWidth = 0, height: pixelHeight = 0 } = await sharp(png).metadata();
    return { mimeType: 'image/png', bytes: png, width: pixelWidth, height: pixelHeight, cssWidth: width };
  }

  /** Kills the drawings under way and refuses the rest: a stopping service leaves no drawing behind. */
  close(): void {
    this.closing.abort(new RemoteImageRefused('the service is shutting down'));
    this.host.close();
  }
}

/**
 * Refuses an SVG over svgLimits, or one that refers to anything outside itself; else its own width
 * and the density to draw it at.
 */
async function checkSvg(svg: Buffer): Promise<{ width: number; density: number }> {
  if (svg.length > svgLimits.maxBytes) {
    throw new RemoteImageRefused(`the SVG image is ${svg.length.toLocaleString('en-US')} bytes; SVG images up to ${svgLimits.maxBytes.toLocaleString('en-US')} bytes are shown`);
  }
  const text = svg.toString('utf8');
  const outside = externalReference.exec(text);
  if (outside) throw new RemoteImageRefused(`the SVG image refers to "${outside[1]!.slice(0, 80)}"; SVG images may not load anything`);
  // An SVG inside the SVG (a data: URL of <image>) would be drawn without the count below.
  if (nonRasterDataUrl.test(text)) {
    throw new RemoteImageRefused('the SVG image holds another SVG image (a data: URL not declared PNG, JPEG, GIF or WebP); SVG images inside SVG images are not drawn');
  }
  if (markupEntity.test(text)) throw new RemoteImageRefused('the SVG image declares an entity holding elements; such SVG images are not drawn');
  const drawn = drawnElements(text.replace(notMarkup, ''), svgLimits.maxDrawnElements);
  if (drawn > svgLimits.maxDrawnElements) {
    throw new RemoteImageRefused(`the SVG image draws more than ${svgLimits.maxDrawnElements.toLocaleString('en-US')} elements (counting what <use> repeats)`);
  }
  let width: number;
  let height: number;
  try {
    ({ width = 0, height = 0 } = await sharp(svg).metadata());
  } catch (error) {
    throw new RemoteImageRefused(`the SVG image cannot be read: ${(error as Error).message}`);
  }
  if (width < 1 || height < 1) throw new RemoteImageRefused('the SVG image has no size');
  const factor = Math.min(pixelsPerCssPx, Math.sqrt(svgLimits.maxPixels / (width * height)));
  // librsvg's density is in dots per inch; an SVG's own px are at 72.
  const density = 72 * factor;
  if (density < 1) throw new RemoteImageRefused(`the SVG image is ${width}×${height} px, too large to draw`);
  return { width, density };
}

const tooDeep = () =>
  new RemoteImageRefused(`the SVG image nests elements (counting what each <use> repeats) more than ${svgLimits.maxDepth.toLocaleString('en-US')} levels deep`);

interface SvgElement {
  children: SvgElement[];
  /** The id a <use> points at (href="#id"). */
  uses?: string;
}

/** One tag: closing slash, name, attributes (quoted values may hold '>'), self-closing slash. */
const tagPattern = /<(\/?)([A-Za-z][\w:.-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g;
const idPattern = /(?:^|\s)id\s*=\s*["']([^"']*)["']/;
const usePattern = /(?:^|\s)(?:xlink:)?href\s*=\s*["']\s*#([^"']*)["']/;

/**
 * How many elements drawing the SVG takes, each <use> counting what it repeats, or more than `limit`
 * as soon as that is certain. A linear scan of the tags (no DOM): enough to bound the work.
 */
function drawnElements(text: string, limit: number): number {
  const root: SvgElement = { children: [] };
  const open: SvgElement[] = [root];
  const byId = new Map<string, SvgElement>();
  const names: string[] = [];
  for (const [, closing, name, attributes = '', selfClosing] of text.matchAll(tagPattern)) {
    if (closing) {
      const at = names.lastIndexOf(name!);
      if (at >= 0) {
        names.length = at;
        open.length = at + 1;
      }
      continue;
    }
    const element: SvgElement = { children: [] };
    const id = idPattern.exec(attributes)?.[1];
    if (id !== undefined && !byId.has(id)) byId.set(id, element);
    if (name!.toLowerCase().endsWith('use')) element.uses = usePattern.exec(attributes)?.[1];
    open.at(-1)!.children.push(element);
    if (!selfClosing) {
      open.push(element);
      names.push(name!);
      if (open.length > svgLimits.maxDepth) throw tooDeep();
    }
  }
  const counted = new Map<SvgElement, number>();
  const counting = new Set<SvgElement>();
  const count = (element: SvgElement, depth: number): number => {
    const known = counted.get(element);
    if (known !== undefined) return known;
    // A <use> that ends up repeating itself: librsvg refuses it; counted as over the limit.
    if (counting.has(element)) return limit + 1;
    if (depth > svgLimits.maxDepth) throw tooDeep();
    counting.add(element);
    let total = 1;
    for (const child of element.children) {
      total += count(child, depth + 1);
      if (total > limit) break;
    }
    const target = element.uses === undefined ? undefined : byId.get(element.uses);
    if (target && total <= limit) total += count(target, depth + 1);
    counting.delete(element);
    counted.set(element, Math.min(total, limit + 1));
    return Math.min(total, limit + 1);
  };
  // The root is not an element of the file; a capped count stays over the limit.
  const total = count(root, 0);
  return total > limit ? total : total - 1;
}
