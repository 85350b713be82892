// GET /api/themes: every theme (built-in and custom) with its modes and default mode, for clients
// and for the web page's theme picker. The CLI and the MCP tool list themes with the same listing.
import type { FastifyInstance } from 'fastify';
import { themeAliases, type ThemeRegistry } from '../cards/themes/registry.js';

export function themeListing(themes: ThemeRegistry) {
  return {
    themes: themes.themes.map((theme) => ({
      id: theme.id,
      className: theme.className,
      name: theme.name,
      modes: theme.modes,
      defaultMode: theme.defaultMode ?? null,
      custom: !theme.builtin,
    })),
    aliases: themeAliases,
  };
}

export type ThemeListing = ReturnType<typeof themeListing>;

export function registerThemesRoute(app: FastifyInstance, themes: ThemeRegistry): void {
  app.get('/api/themes', async () => themeListing(themes));
}
