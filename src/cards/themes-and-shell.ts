// The themes, and the document every render page loads with their CSS (render/shell-document.ts).
// The core builds them (index.ts), or the service builds them before it imports the rest of itself
// (http/run-server.ts), so that its first render page opens on the early browser meanwhile. This
// module imports only what that takes.
import { buildShellDocument, type RenderShell } from './render/shell-document.js';
import { loadThemes, type ThemeRegistry } from './themes/registry.js';

export interface ThemesAndShell {
  themes: ThemeRegistry;
  shell: RenderShell;
}

/** The built-in themes and those of `themesDir`, and the render pages' document with all of them. */
export function themesAndShell(themesDir: string | undefined): ThemesAndShell {
  const themes = loadThemes(themesDir);
  return { themes, shell: buildShellDocument(themes) };
}
