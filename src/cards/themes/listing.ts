// Every theme (built-in and custom) with its modes and default mode: what GET /api/themes answers,
// and what the CLI and the MCP tool list.
import { themeAliases, type ThemeRegistry } from './registry.js';

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
