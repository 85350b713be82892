// All themes the service knows: the built-in ones shipped in themes/ and the custom ones an
// operator drops into THEMES_DIR. Resolves a request's theme/themeMode (with the compatibility
// aliases of docs/api.md#themes-and-aliases) and says exactly what is accepted when they are wrong.
import fs from 'node:fs';
import path from 'node:path';
import { invalidRequest } from '../errors.js';
import { builtinThemesDir } from '../../paths.js';
import { readThemeFile, ThemeFileError, type Theme } from './theme-file.js';

/** Names used by clients of the reference service, mapped to our IDs. */
export const themeAliases: Readonly<Record<string, string>> = {
  'apple-notes': 'plain-notes',
  bytedance: 'brand-a',
  alibaba: 'brand-b',
  xiaohongshu: 'social-purple',
  cyber: 'cyberpunk',
};

export const defaultThemeId = 'plain-notes';

export interface ThemeChoice {
  theme: Theme;
  mode?: string;
  /**
   * What was not applied as asked, in words for the client: a themeMode the theme does not have
   * is rendered in the theme's default mode instead of failing (docs/api.md#request-fields).
   */
  warnings: string[];
}

export interface ThemeLoadProblem {
  file: string;
  message: string;
}

export class ThemeRegistry {
  private readonly byKey = new Map<string, Theme>();

  constructor(
    readonly themes: Theme[],
    /** Custom theme files that could not be loaded; reported at start-up, never fatal. */
    readonly problems: ThemeLoadProblem[] = [],
  ) {
    for (const theme of themes) {
      this.byKey.set(theme.id, theme);
      this.byKey.set(theme.className, theme);
    }
  }

  get(idOrClass: string): Theme | undefined {
    return this.byKey.get(themeAliases[idOrClass] ?? idOrClass);
  }

  /**
   * Turns the request's theme and themeMode into a theme and mode. An unknown theme is a 400 naming
   * what is accepted. A mode the theme does not have is not an error: clients of the reference
   * service send a mode whatever the theme (its MCP server passes one blindly), so the card is
   * drawn in the theme's default mode and a warning says which mode was used and which exist.
   */
  resolve(requestedTheme: string | undefined, requestedMode: string | undefined): ThemeChoice {
    const theme = this.get(requestedTheme ?? defaultThemeId);
    if (!theme) {
      throw invalidRequest(
        `theme "${requestedTheme}" is not a known theme. Accepted: ${this.themes.map((t) => t.id).join(', ')}` +
          ` (aliases: ${Object.keys(themeAliases).join(', ')}).`,
      );
    }
    if (requestedMode === undefined || requestedMode === theme.defaultMode) return { theme, mode: theme.defaultMode, warnings: [] };
    if (theme.modes.includes(requestedMode)) return { theme, mode: requestedMode, warnings: [] };
    const warning =
      theme.modes.length === 0
        ? `themeMode "${requestedMode}" was ignored: theme "${theme.id}" has no modes.`
        : `themeMode "${requestedMode}" is not a mode of theme "${theme.id}"; rendered in its default mode "${theme.defaultMode}". ` +
          `Modes of this theme: ${theme.modes.join(', ')}.`;
    return { theme, mode: theme.defaultMode, warnings: [warning] };
  }

  /** The CSS of every theme, concatenated: the shell page holds them all so any theme renders at once. */
  allCss(): string {
    return this.themes
      .map((theme) => {
        const css = theme.builtin ? theme.css : scopedToOwnCards(theme);
        return `/* theme ${theme.id} */\n${css}`;
      })
      .join('\n');
  }
}

/**
 * A custom theme's rules apply inside its own cards only, so an unscoped selector in an
 * operator's file cannot restyle every other theme of the shared page. Inside `@scope` the card
 * itself is `:scope`, so the theme's own class is rewritten to it (`.my-theme.dark-mode` →
 * `:scope.dark-mode`); any other selector matches only within the card.
 */
function scopedToOwnCards(theme: Theme): string {
  const ownClass = new RegExp(`\\.${theme.className}(?![\\w-])`, 'g');
  return `@scope (.${theme.className}) {\n${theme.css.replace(ownClass, ':scope')}\n}`;
}

/** Files of a themes folder: *.css, except partials whose names start with `_`. */
function themeFilesIn(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.css') && !name.startsWith('_'))
    .sort()
    .map((name) => path.join(dir, name));
}

/**
 * Loads the built-in themes (a broken one is a bug: throws) and the custom ones from themesDir
 * (a broken one is reported in `problems` and skipped, so one bad file cannot stop the service).
 */
export function loadThemes(themesDir?: string): ThemeRegistry {
  const themes = themeFilesIn(builtinThemesDir).map((file) => readThemeFile(file, true));
  const problems: ThemeLoadProblem[] = [];
  if (themesDir) {
    let files: string[] = [];
    try {
      files = themeFilesIn(themesDir);
    } catch (error) {
      problems.push({ file: themesDir, message: `THEMES_DIR cannot be read: ${(error as Error).message}` });
    }
    for (const file of files) {
      try {
        const theme = readThemeFile(file, false);
        const clash = themes.find((t) => t.id === theme.id || t.className === theme.className);
        if (clash) throw new ThemeFileError(file, `its id or class clashes with theme "${clash.id}" (${clash.file}); rename it.`);
        themes.push(theme);
      } catch (error) {
        problems.push({ file, message: (error as Error).message });
      }
    }
  }
  return new ThemeRegistry(themes, problems);
}
