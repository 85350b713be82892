// A typed client of a cardwright service: every path, body field and answer is checked by the
// TypeScript compiler against the types generate-types.mjs wrote from the service's /openapi.json.
import createClient from 'openapi-fetch';
import type { paths } from './generated/cardwright-api.js';

export type GenerateBody = NonNullable<paths['/api/generate']['post']['requestBody']>['content']['application/json'];
export type ThemeList = paths['/api/themes']['get']['responses'][200]['content']['application/json'];

/** An error answer of the service (`{"error","message"}`), with the status it came with. */
export class CardwrightError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(`${status} ${error}: ${message}`);
  }
}

export function createCardwrightClient(baseUrl: string, apiKey: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey } });

  return {
    /** Renders Markdown into stored cards; answers their URLs and sizes. */
    async generate(body: GenerateBody) {
      const { data, error, response } = await client.POST('/api/generate', { body });
      if (error) throw new CardwrightError(response.status, error.error, error.message);
      return data.images.map((image) => ({ url: image.url, width: image.width, height: image.height }));
    },

    /** The themes the server accepts, with their modes. */
    async themes(): Promise<ThemeList> {
      const { data, error, response } = await client.GET('/api/themes');
      if (error) throw new CardwrightError(response.status, 'unexpected', JSON.stringify(error));
      return data;
    },

    /** Whether the service takes work now (`GET /ready`). */
    async ready(): Promise<boolean> {
      const { response } = await client.GET('/ready');
      return response.status === 200;
    },
  };
}

// Compile-time checks: each line below must stay a type error, or the generated types have lost
// what they say about the service (the example's type check fails on an unused @ts-expect-error).
export function typeChecks(client: ReturnType<typeof createClient<paths>>) {
  // @ts-expect-error: width is a number of CSS px, not a word
  void client.POST('/api/generate', { body: { markdown: '# a', width: 'wide' } });
  // @ts-expect-error: splitMode takes one of the documented modes only
  void client.POST('/api/generate', { body: { splitMode: 'pageSplit' } });
  // @ts-expect-error: the service has no such route
  void client.GET('/api/cards');
}
