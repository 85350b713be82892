// POST /api/generate: authenticate, validate, then the card pipeline's generate(), answered with
// the stored images' URLs.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CardRequest, Cards } from '../cards/index.js';
import type { Logger } from '../cards/logger.js';
import { normalizeRequest } from '../cards/request/normalize.js';
import { GenerateBody, type GenerateBodyInput } from '../cards/request/schema.js';
import { withRequestLog } from '../cards/request-log.js';
import { cardsIn } from '../cards/cards-made.js';
import type { KeyUsage } from '../shared-state/key-usage.js';
import type { ApiKeyStore } from './api-keys.js';
import { httpFailures } from './http-errors.js';
import { bodyWarnings, readNumbersSentAsText } from './numeric-strings-hook.js';
import type { Metrics } from './metrics.js';
import { requestDeadline } from './request-deadline.js';
import { sendWarningsHeader } from './warnings-header.js';
import { generateAnswer, type GenerateAnswer } from './generate-answer.js';
import { editorUrlOf } from './saved-request-route.js';

export interface GenerateRouteDeps {
  cards: Cards;
  apiKeys: ApiKeyStore;
  requestTimeoutMs: number;
  /** Whether repeated requests may be answered from the render cache (RENDER_CACHE). */
  cacheEnabled: boolean;
  /** This service's own address: previewUrl opens its editor page. */
  publicBaseUrl: string;
  /** Counts each key's cards, for GET /api/user/info. */
  usage: KeyUsage;
  metrics?: Metrics;
}

/**
 * The key check of the routes that store images. It runs before the body is validated, so an
 * unauthenticated caller learns nothing.
 */
export function requireApiKey(apiKeys: ApiKeyStore) {
  return async (request: FastifyRequest) => {
    const key = request.headers['x-api-key'];
    if (!apiKeys.isValid(typeof key === 'string' ? key : undefined)) {
      throw httpFailures.unauthorized();
    }
  };
}

/** Adds an answer's `cost` (its cards) to the count of the key that asked, as MD2Card counts credits used. */
export function countCards(deps: { apiKeys: ApiKeyStore; usage: KeyUsage }, request: FastifyRequest, cards: number): void {
  const keyId = deps.apiKeys.idOf(String(request.headers['x-api-key']));
  if (keyId) deps.usage.add(keyId, cards);
}

/** What one generate call needs besides the request: who asks, for how long, and where to log. */
export interface GenerateCall {
  signal: AbortSignal;
  /** The asking key's id (ApiKeyStore.idOf), whose card count the answer adds to. */
  keyId: string | undefined;
  /** Set when the answer may come from, and go to, the render cache: the asker's own part of it. */
  cacheScope: string | undefined;
  /** What was read differently from how it was sent (numbers sent as text), for the answer's warnings. */
  bodyWarnings: string[];
  log: Logger;
}

/**
 * The success answer of POST /api/generate for a checked request. The route and the jobs (which
 * answer each of their requests exactly as the route would) both call it; failures are thrown.
 */
export async function answerGenerate(deps: GenerateRouteDeps, cardRequest: CardRequest, call: GenerateCall): Promise<{ answer: GenerateAnswer; fromCache: boolean; warnings: string[] }> {
  const generated = await withRequestLog(call.log, () => deps.cards.generate(cardRequest, call.signal, { cacheScope: call.cacheScope }));
  const { images, fromCache, savedRequestId } = generated;
  const warnings = [...call.bodyWarnings, ...generated.warnings];
  if (!fromCache) deps.metrics?.stored(images);
  if (call.keyId) deps.usage.add(call.keyId, cardsIn(images));
  return { answer: generateAnswer(images, editorUrlOf(deps.publicBaseUrl, savedRequestId), warnings), fromCache, warnings };
}

export function registerGenerateRoute(app: FastifyInstance, deps: GenerateRouteDeps): void {
  app.post<{ Body: GenerateBodyInput | undefined }>(
    '/api/generate',
    { onRequest: requireApiKey(deps.apiKeys), preValidation: readNumbersSentAsText(GenerateBody), schema: { body: GenerateBody } },
    async (request, reply) => {
      const key = String(request.headers['x-api-key']);
      const { answer, fromCache, warnings } = await answerGenerate(deps, normalizeRequest(request.body ?? {}), {
        signal: requestDeadline(reply, deps.requestTimeoutMs),
        keyId: deps.apiKeys.idOf(key),
        // Cache entries are the caller's own: one tenant never learns what another rendered.
        cacheScope: deps.cacheEnabled ? key : undefined,
        bodyWarnings: bodyWarnings(request),
        log: request.log,
      });
      if (deps.cacheEnabled) reply.header('X-Cache', fromCache ? 'hit' : 'miss');
      sendWarningsHeader(reply, warnings);
      return answer;
    },
  );
}
