// `cardwright themes`: the themes this installation renders (built-in and THEMES_DIR), with their
// modes, as a table or as the JSON of GET /api/themes.
import stringWidth from 'string-width';
import { themeListing, type ThemeListing } from '../cards/themes/listing.js';
import { loadConfig } from '../config.js';
import { loadThemes } from '../cards/themes/registry.js';
import { parseCommandLine, UsageError } from './command-line.js';
import { themesCommand } from './commands.js';

export function runThemes(args: string[]): void {
  const { values, positionals } = parseCommandLine(themesCommand, args);
  if (positionals.length > 0) throw new UsageError(`themes takes no arguments; got ${positionals.join(', ')}.`);
  const listing = themeListing(loadThemes(loadConfig().themesDir));
  process.stdout.write(values.json ? `${JSON.stringify(listing, null, 2)}\n` : themeTable(listing));
}

/** Pads to a width in terminal columns: a CJK character or an emoji takes two, a combining mark none. */
const padToWidth = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - stringWidth(text)));

export function themeTable(listing: ThemeListing): string {
  const idWidth = Math.max(...listing.themes.map((theme) => stringWidth(theme.id))) + 2;
  const nameWidth = Math.max(...listing.themes.map((theme) => stringWidth(theme.name))) + 2;
  const rows = listing.themes.map((theme) => {
    const modes = theme.modes.length > 0 ? theme.modes.join(' ') : '(no modes)';
    return `${padToWidth(theme.id, idWidth)}${padToWidth(theme.name, nameWidth)}${modes}${theme.custom ? '  [custom]' : ''}`;
  });
  const aliases = Object.entries(listing.aliases).map(([alias, id]) => `${alias} → ${id}`);
  return `${rows.join('\n')}\n\nAliases: ${aliases.join(', ')}\n`;
}
