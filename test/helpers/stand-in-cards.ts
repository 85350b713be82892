// A stand-in for the card pipeline (Cards, src/cards/index.ts) for tests of the HTTP layer alone:
// no browser, no Markdown workers. It records each call and answers what the test sets, so a
// route test checks what the route does with a request and with each answer or failure of the
// core. The real pipeline behind the same routes is tested over real HTTP elsewhere.
import type { Cards, CardRequest, Preview, PreviewMeter, StoredImage } from '../../src/cards/index.js';
import type { Generated } from '../../src/cards/index.js';
import { loadThemes } from '../../src/cards/themes/registry.js';

export interface StandInCalls {
  generate: { request: CardRequest; cacheScope?: string }[];
  preview: CardRequest[];
}

export interface StandInCards {
  cards: Cards;
  calls: StandInCalls;
  /** What the next operations answer: a result, or an error to throw. */
  answer: {
    generate?: Generated | Error;
    generateHeld?: (request: CardRequest) => Promise<void>;
    preview?: Preview | Error;
    chargeImages?: number;
    markdownCpuMs?: number;
    previewHeld?: (request: CardRequest) => Promise<void>;
  };
  /** What /ready learns of the render pool. */
  pool: { browserUp: boolean; queueFull: boolean; isDraining: boolean };
}

export function storedImage(index: number): StoredImage {
  return { url: `http://127.0.0.1/screenshots/card-${index}.png`, fileName: `card-${index}.png`, width: 440, height: 586, size: 12.5, bytes: 12_800, alt: `Card ${index}` };
}

export function standInCards(): StandInCards {
  const themes = loadThemes(undefined);
  const calls: StandInCalls = { generate: [], preview: [] };
  const answer: StandInCards['answer'] = {};
  const pool = { browserUp: true, queueFull: false, isDraining: false };
  const unexpected = (name: string) => async () => {
    throw new Error(`the stand-in core was not asked to ${name}`);
  };
  const settle = <T>(value: T | Error | undefined, fallback: T): T => {
    if (value instanceof Error) throw value;
    return value ?? fallback;
  };
  const cards = {
    themes,
    renderer: pool,
    shell: { html: '<!doctype html><html><head></head><body><div id="cards"></div></body></html>' },
    start: async () => {},
    expectPreviews: () => {},
    async generate(request: CardRequest, _signal: AbortSignal, options: { cacheScope?: string } = {}) {
      calls.generate.push({ request, cacheScope: options.cacheScope });
      await answer.generateHeld?.(request);
      return settle(answer.generate, { images: [storedImage(1)], complete: true, warnings: [], savedRequestId: 'saved-1', fromCache: false });
    },
    async preview(request: CardRequest, _signal: AbortSignal, meter?: PreviewMeter) {
      calls.preview.push(request);
      await answer.previewHeld?.(request);
      for (let image = 0; image < (answer.chargeImages ?? 0); image++) await meter?.image();
      if (answer.markdownCpuMs !== undefined) await meter?.markdownCpu?.(answer.markdownCpuMs);
      const theme = themes.resolve(request.theme, request.themeMode);
      return settle(answer.preview, {
        cards: [{ html: '<p>card</p>' }],
        theme: theme.theme.id,
        themeMode: theme.mode ?? null,
        width: request.width,
        height: request.height,
        warnings: [],
      });
    },
    render: unexpected('render'),
    thumbnail: unexpected('draw a thumbnail'),
    renderCover: unexpected('render covers'),
    cover: unexpected('store covers'),
    close: async () => {},
  };
  // The routes read only the pool's readiness from the renderer; the rest of Cards is as above.
  return { cards: cards as unknown as Cards, calls, answer, pool };
}
