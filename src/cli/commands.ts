// What each cardwright command accepts: its arguments, options and help notes. Kept apart from the
// commands' code, which is loaded only when the command runs, so `--help` answers at once.
import { fontFamilies, formats, limits, splitModes } from '../cards/request/schema.js';
import { watermarkLimits } from '../cards/request/watermark.js';
import { defaultThemeId } from '../cards/themes/registry.js';
import type { CommandSpec } from './command-line.js';

export const renderCommand: CommandSpec = {
  name: 'render',
  arguments: '<file.md | -> [more.md … with --remote]',
  summary: 'Renders Markdown to card images in a folder and prints their paths, one per line. "-" reads standard input.',
  options: [
    { name: 'out', short: 'o', value: '<dir>', description: 'folder for the images, created if missing (default: the current folder)' },
    { name: 'name', short: 'n', value: '<base>', description: 'file names <base>-1.png, <base>-2.png, … (one <base>-1.pdf with --format pdf; default: the input file\'s name, "card" for stdin)' },
    { name: 'theme', short: 't', value: '<id>', description: `theme ID, alias or custom theme class (default: ${defaultThemeId}); see \`cardwright themes\`` },
    { name: 'mode', short: 'm', value: '<id>', description: "a mode of the theme, the API's themeMode (default: the theme's first mode)" },
    { name: 'split', short: 's', value: '<mode>', description: `${splitModes.join(', ')}, the API's splitMode (default: ${splitModes[0]})` },
    { name: 'width', short: 'w', value: '<px>', description: `card width in CSS px, ${limits.width.min}–${limits.width.max} (default: ${limits.width.default})` },
    { name: 'height', value: '<px>', description: `card height in CSS px, ${limits.height.min}–${limits.height.max} (default: ${limits.height.default})` },
    { name: 'format', short: 'f', value: '<format>', description: `${formats.join(', ')} (default: ${formats[0]})` },
    { name: 'scale', value: '<n>', description: `device pixels per CSS px, ${limits.scale.min}–${limits.scale.max} (default: ${limits.scale.default}: 440 px wide → 880 px image)` },
    { name: 'mdx', description: "read the input as MDX, the API's mdxMode" },
    { name: 'over-hidden', description: "clip each card to --height, the API's overHiddenMode" },
    { name: 'font', value: '<face>', description: `a bundled body face instead of the theme's: ${fontFamilies.join(', ')}, the API's fontFamily` },
    { name: 'no-hashtags', description: "draw #tags as written, not as tag chips (the API's hashtags: false)" },
    {
      name: 'watermark',
      value: '<text>',
      description: `a text (e.g. your handle, at most ${watermarkLimits.textMaxLength} characters) drawn at the bottom right of every card, the API's watermark; position, opacity, size and a logo in the front matter's watermark key`,
    },
    { name: 'clean', description: 'remove numbered files of the same name left by an earlier, longer result (without it they are an error)' },
    { name: 'json', description: 'print {"images":[{"file","width","height","size"}]} instead of paths (with --remote: {"success","files","failures"})' },
    {
      name: 'remote',
      description: 'render with the cardwright service at CARDWRIGHT_URL (key: CARDWRIGHT_API_KEY) as one job, and download the images; takes several files (up to 200), each written under its own name',
    },
  ],
  notes: [
    'Examples:',
    '  cardwright render notes.md -o out/ --theme pop-art --mode mint-mode --split autoSplit',
    '  pbpaste | cardwright render - -o out/ --name today --format jpeg',
    '  CARDWRIGHT_URL=https://cards.example.com CARDWRIGHT_API_KEY=… cardwright render *.md --remote -o out/',
    '',
    'Environment: THEMES_DIR (custom themes), CHROMIUM_PATH, REQUEST_TIMEOUT_MS, LOG_LEVEL (default warn).',
    'Exit status: 0 images written; 1 the input could not be read or rendering failed;',
    '2 the command line or the request is invalid (the message says what is accepted).',
  ].join('\n'),
};

export const themesCommand: CommandSpec = {
  name: 'themes',
  arguments: '',
  summary: 'Lists every theme with its modes (the first mode is the default), then the accepted aliases.',
  options: [{ name: 'json', description: 'print the same JSON as GET /api/themes' }],
  notes: 'Environment: THEMES_DIR adds the custom themes in that folder.',
};

export const keysCommand: CommandSpec = {
  name: 'keys',
  arguments: 'create | revoke <key>',
  summary: 'Creates an API key, saves it where the service reads keys and prints it on standard output; or revokes one.',
  options: [{ name: 'hashed', description: 'save only the SHA-256 digest of the key (sha256:<hex>), so the file holds no secret' }],
  notes: [
    'The key is added to API_KEYS_FILE when that is set, else to DATA_DIR/api-keys.txt (DATA_DIR defaults to ./data).',
    'A running service sees the changed file within a second (or at once on SIGHUP): no restart needed.',
    'revoke removes the key (or its sha256: entry) from that file and, with REDIS_URL set, revokes it for every',
    'replica sharing that Redis within a second, whatever their own key files say.',
    '',
    'Example:',
    '  export CARDWRIGHT_API_KEY="$(cardwright keys create)"',
    '  REDIS_URL=redis://redis:6379 cardwright keys revoke "$OLD_KEY"',
  ].join('\n'),
};

export const serveCommand: CommandSpec = {
  name: 'serve',
  arguments: '',
  summary: 'Starts the service: POST /api/generate, GET /api/themes, the API reference at /docs and /openapi.json.',
  options: [
    { name: 'port', short: 'p', value: '<port>', description: 'port to listen on (default: PORT, else 3000)' },
    { name: 'host', value: '<host>', description: 'address to listen on (default: HOST, else 0.0.0.0)' },
  ],
  notes: 'Every other setting is an environment variable (PUBLIC_BASE_URL, DATA_DIR, API_KEYS, STORAGE, …); see the README.',
};

export const mcpCommand: CommandSpec = {
  name: 'mcp',
  arguments: '',
  summary: 'Runs a Model Context Protocol server on standard input/output with the tools render_cards and list_themes.',
  options: [],
  notes: [
    'Environment:',
    '  CARDWRIGHT_URL, CARDWRIGHT_API_KEY  call that cardwright service instead of rendering here',
    '  CARDWRIGHT_OUTPUT_DIR                local mode: folder for the images (default: <tmp>/cardwright)',
    '  THEMES_DIR, CHROMIUM_PATH, LOG_LEVEL  as for the service; logs go to standard error',
  ].join('\n'),
};
