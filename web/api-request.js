// The request the page sends for the current settings: the JSON body of POST /api/generate,
// the same request as a cURL command, and which control an API error message is about.
import { t } from './i18n.js';

/** Body of POST /api/generate (and of the preview) for the current settings. */
export function requestBody(settings, theme) {
  return {
    markdown: settings.markdown,
    theme: settings.theme,
    themeMode: theme && theme.modes.length > 0 ? settings.themeMode : null,
    width: settings.width,
    height: settings.height,
    splitMode: settings.splitMode,
    mdxMode: settings.mdxMode,
    overHiddenMode: settings.overHiddenMode,
    format: settings.format,
    scale: settings.scale,
    fontScale: settings.fontScale ?? 1,
    ...(settings.hashtags === false ? { hashtags: false } : {}),
    ...(settings.fontFamily ? { fontFamily: settings.fontFamily } : {}),
    // Sent once it has something to draw; position and opacity only when chosen.
    ...(settings.watermark?.text?.trim() || settings.watermark?.image ? { watermark: settings.watermark } : {}),
    // Only from a saved request (previewUrl): the page has no control for them.
    ...(settings.weChatMode ? { weChatMode: true } : {}),
    ...(settings.background ? { background: settings.background } : {}),
  };
}

/** Wraps text in single quotes for a POSIX shell. */
const shellQuote = (text) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The request as a cURL command. The key is read from $CARDWRIGHT_API_KEY rather than written
 * out, so the command can be shown, shared and pasted without leaking the key.
 */
export function curlCommand(origin, body) {
  return [
    `curl -s ${shellQuote(`${origin}/api/generate`)}`,
    `  -H "x-api-key: $CARDWRIGHT_API_KEY"`,
    `  -H 'content-type: application/json'`,
    `  -d ${shellQuote(JSON.stringify(body, null, 2))}`,
  ].join(' \\\n');
}

/** Request fields, most specific first ("themeMode" before "theme"). */
const fieldNames = ['themeMode', 'theme', 'front matter', 'markdown', 'hashtags', 'fontFamily', 'watermark', 'width', 'height', 'splitMode', 'mdxMode', 'overHiddenMode', 'format', 'fontScale', 'scale'];
const fieldPattern = new RegExp(`\\b(${fieldNames.join('|')})\\b`);

/**
 * The control an API error concerns: the first request field its message names (messages name
 * the field, the value and what is accepted), the key for 401, else the Generate button.
 */
export function errorField(status, error) {
  if (status === 401) return 'api-key';
  if (status === 400 && typeof error?.message === 'string') {
    const match = fieldPattern.exec(error.message);
    if (match) return match[1] === 'front matter' ? 'markdown' : match[1];
  }
  return 'generate';
}

/** Reads an API answer: JSON on success, or an error with the service's words in it. */
export async function readAnswer(response) {
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (response.ok && json) return { ok: true, json };
  const message = typeof json?.message === 'string' ? json.message : t('The service answered {status}: {message}', { status: response.status, message: response.statusText || '—' });
  return { ok: false, status: response.status, error: { error: json?.error ?? 'error', message } };
}
