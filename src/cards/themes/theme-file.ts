// A theme is one CSS file whose leading comment declares what it is:
//
//   /*
//    * @id      plain-notes            the value clients pass as `theme`
//    * @class   card-plain-notes       CSS class put on the card (default: card-<id>)
//    * @name    Plain Notes            display name
//    * @modes   light-mode dark-mode   mode IDs, first is the default (omit for none)
//    */
//
// Built-in themes (themes/*.css) and operators' custom themes (THEMES_DIR/*.css) use the same
// format, so a custom theme is written exactly like a built-in one. For a custom theme the client
// passes the class name (docs/themes.md#theme-files), so `@id` defaults to `@class` when only the class is given.
import fs from 'node:fs';
import path from 'node:path';

export interface Theme {
  id: string;
  className: string;
  name: string;
  modes: string[];
  /** First mode, or undefined for a theme without modes. */
  defaultMode?: string;
  css: string;
  builtin: boolean;
  file: string;
}

const identifier = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

export class ThemeFileError extends Error {
  constructor(file: string, problem: string) {
    super(`Theme file ${file}: ${problem}`);
    this.name = 'ThemeFileError';
  }
}

/** Reads and checks one theme file. Throws ThemeFileError saying what to fix. */
export function readThemeFile(file: string, builtin: boolean): Theme {
  const css = fs.readFileSync(file, 'utf8');
  const header = /^\s*\/\*([\s\S]*?)\*\//.exec(css)?.[1];
  if (!header) throw new ThemeFileError(file, 'must start with a comment declaring @id or @class, @name and @modes.');

  const tags = new Map<string, string>();
  for (const line of header.split('\n')) {
    const match = /^\s*\*?\s*@(\w+)\s+(.*?)\s*$/.exec(line);
    if (match?.[1] && match[2] !== undefined) tags.set(match[1], match[2]);
  }
  const className = tags.get('class') ?? (tags.get('id') ? `card-${tags.get('id')}` : undefined);
  const id = tags.get('id') ?? tags.get('class');
  if (!id || !className) throw new ThemeFileError(file, 'declares neither @id nor @class.');
  for (const [label, value] of [['@id', id], ['@class', className]] as const) {
    if (!identifier.test(value)) {
      throw new ThemeFileError(file, `${label} "${value}" must be letters, digits, - or _ and start with a letter.`);
    }
  }
  const modes = (tags.get('modes') ?? '').split(/[\s,]+/).filter(Boolean);
  for (const mode of modes) {
    if (!identifier.test(mode)) throw new ThemeFileError(file, `mode "${mode}" must be letters, digits, - or _.`);
  }
  if (new Set(modes).size !== modes.length) throw new ThemeFileError(file, 'lists a mode twice.');

  return {
    id,
    className,
    name: tags.get('name') ?? id,
    modes,
    defaultMode: modes[0],
    css,
    builtin,
    file: path.resolve(file),
  };
}
