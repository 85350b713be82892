// GET /api/themes: every theme (built-in and custom) with its modes and default mode, for clients
// and for the web page's theme picker.
import type { FastifyInstance } from 'fastify';
import { themeListing } from '../cards/themes/listing.js';
import type { ThemeRegistry } from '../cards/themes/registry.js';

export function registerThemesRoute(app: FastifyInstance, themes: ThemeRegistry): void {
  app.get('/api/themes', async () => themeListing(themes));
}
