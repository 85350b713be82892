// GET /api/user/info: MD2Card's account endpoint, which its clients' scripts call before generating
// to read the key's credits ({"success": true, "data": {"balance": …, "used": …}}). cardwright
// charges no credits: `used` is the number of cards this key has made (the sum of its answers'
// `cost`), `balance` is null and `unlimited` true (docs/md2card.md#endpoints).
import type { FastifyInstance } from 'fastify';
import type { KeyUsage } from '../shared-state/key-usage.js';
import type { ApiKeyStore } from './api-keys.js';
import { requireApiKey } from './generate-route.js';

export interface UserInfoRouteDeps {
  apiKeys: ApiKeyStore;
  usage: KeyUsage;
}

export function registerUserInfoRoute(app: FastifyInstance, deps: UserInfoRouteDeps): void {
  app.get('/api/user/info', { onRequest: requireApiKey(deps.apiKeys) }, async (request) => {
    // requireApiKey has let only a valid key through, so it has an id.
    const keyId = deps.apiKeys.idOf(String(request.headers['x-api-key'])) ?? '';
    return { success: true, data: { used: await deps.usage.used(keyId), balance: null, unlimited: true } };
  });
}
