// GET /api/themes: every theme (built-in and custom) with its modes and default mode, for clients
// and for the web page's theme picker.
import type { FastifyInstance } from 'fastify';
import { themeAliases, type ThemeRegistry } from '../themes/registry.js';

export function registerThemesRoute(app: FastifyInstance, themes: ThemeRegistry): void {
  app.get('/api/themes', async () => ({
    themes: themes.themes.map((theme) => ({
      id: theme.id,
      className: theme.className,
      name: theme.name,
      modes: theme.modes,
      defaultMode: theme.defaultMode ?? null,
      custom: !theme.builtin,
    })),
    aliases: themeAliases,
  }));
}
