// POST /api/preview: the live preview of the web page. Takes the body of POST /api/generate and
// answers with what the card pipeline's preview() builds: the HTML of every card (or, for split
// modes, the images the renderer captures), its images shown by address from a short-lived store
// (preview-images.ts). No key is needed to look: nothing is stored for long, and every client has
// a work budget (see preview-budget.ts).
import type { FastifyInstance } from 'fastify';
import type { Cards } from '../cards/index.js';
import { normalizeRequest } from '../cards/request/normalize.js';
import { GenerateBody, type GenerateBodyInput } from '../cards/request/schema.js';
import { holdsLongText, jsonInPieces } from './json-in-pieces.js';
import { PreviewImages, registerPreviewImagesRoute } from './preview-images.js';
import { clientKey } from './client-key.js';
import { ClientTurns } from './client-turns.js';
import { capturedCardsCost, PreviewBill, previewCost, PreviewBudget, imageCost, markdownCpuCost, pageLayoutCost, type PreviewBudgetOptions } from './preview-budget.js';
import type { SharedRedis } from '../shared-state/redis.js';
import { bodyWarnings, readNumbersSentAsText } from './numeric-strings-hook.js';
import { requestDeadline } from './request-deadline.js';
import { sendWarningsHeader } from './warnings-header.js';

export interface PreviewRouteDeps {
  cards: Cards;
  requestTimeoutMs: number;
  previewBudget: PreviewBudgetOptions;
  /** Shares the budgets between replicas (REDIS_URL). */
  redis?: SharedRedis;
}

/** Previews one client may have waiting behind its running one (see client-turns.ts). */
const previewsWaitingPerClient = 2;

export function registerPreviewRoute(app: FastifyInstance, deps: PreviewRouteDeps): void {
  const budget = new PreviewBudget(deps.previewBudget, deps.redis);
  const turns = new ClientTurns(previewsWaitingPerClient);
  const images = new PreviewImages(deps.redis);
  registerPreviewImagesRoute(app, images);
  app.post<{ Body: GenerateBodyInput | undefined }>('/api/preview', { preValidation: readNumbersSentAsText(GenerateBody), schema: { body: GenerateBody } }, async (request, reply) => {
    const started = performance.now();
    const cardRequest = normalizeRequest(request.body ?? {});
    // The client's key (an IPv4 address, or an IPv6 /64) is formed before Redis sees it.
    const client = clientKey(request.ip);
    const bill = new PreviewBill(budget, client);
    await bill.charge(previewCost(cardRequest));
    const deadline = requestDeadline(reply, deps.requestTimeoutMs);
    const drawn = await turns.run(client, deadline, () =>
      deps.cards.preview(cardRequest, deadline, {
        image: () => bill.charge(imageCost),
        pageLayout: () => bill.charge(pageLayoutCost),
        cards: (_count, devicePixels) => bill.charge(capturedCardsCost(devicePixels)),
        markdownCpu: (ms) => bill.owe(markdownCpuCost(cardRequest, ms)),
      }, images.link),
    );
    reply.header('Server-Timing', `preview;dur=${(performance.now() - started).toFixed(1)}`);
    reply.header('Cache-Control', 'no-store');
    const preview = { ...drawn, warnings: [...bodyWarnings(request), ...drawn.warnings] };
    sendWarningsHeader(reply, preview.warnings);
    // Cards that inline many images are MBs of JSON: sent in pieces, so /health is not held up.
    if (holdsLongText(preview.cards)) return reply.type('application/json; charset=utf-8').send(jsonInPieces(preview));
    return preview;
  });
}
