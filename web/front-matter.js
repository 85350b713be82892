// The cover and signature panel writes the Markdown's front matter (docs/api.md#front-matter) for
// the visitor: each field of the panel is one `key: value` line of the block at the very top,
// added, changed or removed as the field changes; every other line of the block stays as written.
// Values are written as JSON, which YAML reads as the same text, list or boolean.

const opening = /^\uFEFF?---[ \t]*\r?\n/;
const closing = /^(?:---|\.\.\.)[ \t]*\r?$/;

/** The front matter's lines and the rest of the document, or no lines when there is no block. */
function split(markdown) {
  const start = opening.exec(markdown);
  if (!start) return { lines: null, rest: markdown };
  const lines = markdown.slice(start[0].length).split('\n');
  const end = lines.findIndex((line) => closing.test(line));
  if (end < 0) return { lines: null, rest: markdown };
  // As the service reads it: a block whose first line is not a `key:` is a rule and text (content).
  const first = lines.slice(0, end).find((line) => !/^\s*(#.*)?\r?$/.test(line));
  if (first !== undefined && !/^["']?[\w-]+["']?[ \t]*:(\s|$)/.test(first)) return { lines: null, rest: markdown };
  return { lines: lines.slice(0, end), rest: lines.slice(end + 1).join('\n') };
}

const keyLine = /^([A-Za-z][\w-]*):[ \t]*(.*)$/;

/** A value as the panel shows it: a text, a boolean, or tags joined with commas. */
function parseValue(raw) {
  const text = raw.trim();
  try {
    const value = JSON.parse(text);
    return Array.isArray(value) ? value.join(', ') : value;
  } catch {
    if (/^\[.*\]$/.test(text)) return text.slice(1, -1).split(',').map((item) => item.trim().replace(/^["']|["']$/g, '')).filter(Boolean).join(', ');
    if (/^'.*'$/.test(text)) return text.slice(1, -1).replaceAll("''", "'");
    return text;
  }
}

/** The panel's keys as the front matter sets them (absent when it does not). */
export function readFrontMatter(markdown, keys) {
  const { lines } = split(markdown);
  const values = {};
  for (const line of lines ?? []) {
    const match = keyLine.exec(line);
    if (match && keys.includes(match[1])) values[match[1]] = parseValue(match[2]);
  }
  return values;
}

/** The line for one key, or null to remove it (empty text, false). */
function line(key, value) {
  if (value === true) return `${key}: true`;
  if (value === false || value === undefined || value === null || String(value).trim() === '') return null;
  if (key === 'tags') return `${key}: ${JSON.stringify(String(value).split(/[,，]/).map((tag) => tag.trim().replace(/^#/, '')).filter(Boolean))}`;
  return `${key}: ${JSON.stringify(String(value).trim())}`;
}

/** `markdown` with `key` set to `value` in its front matter (the block made or removed as needed). */
export function writeFrontMatter(markdown, key, value) {
  const { lines, rest } = split(markdown);
  const kept = [...(lines ?? [])];
  const index = kept.findIndex((existing) => keyLine.exec(existing)?.[1] === key);
  const next = line(key, value);
  if (index >= 0) {
    if (next === null) kept.splice(index, 1);
    else kept[index] = next;
  } else if (next !== null) {
    kept.push(next);
  }
  if (kept.every((existing) => existing.trim() === '')) return lines === null ? markdown : rest.replace(/^\n/, '');
  return `---\n${kept.join('\n')}\n---\n${rest}`;
}
