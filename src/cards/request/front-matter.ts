// YAML front matter: a `---` … `---` block at the very top of the Markdown that sets request fields
// (the body wins where both set one) and the creator's cover, signature and closing card
// (docs/api.md#front-matter). Parsed by the `yaml` package with its core schema and no custom tags,
// size-limited, and checked with the request's own JSON Schema, so a value the body may not have
// is refused in the front matter too, with the line and key named. A block anywhere else, one that
// is never closed, or one that does not begin with a `key:` line is content, as in CommonMark.
import { Ajv, type ValidateFunction } from 'ajv';
import { LineCounter, parseDocument, isMap, isScalar, type Pair } from 'yaml';
import { invalidRequest } from '../errors.js';
import { dataImageUri } from './data-image.js';
import { GenerateBody, type CreatorOptions, type GenerateBodyInput } from './schema.js';
import { requestValidationOptions } from './validation-options.js';
import { validationMessage } from './validation-message.js';

export const frontMatterLimits = {
  /** Characters between the two `---` lines. */
  maxLength: 8_000,
  /** Characters of title, end and a signature text; other texts (subtitle, author, handle, date) take half. */
  maxTextLength: 200,
  maxTags: 10,
  maxTagLength: 30,
  /** Characters of an avatar's data: URI (about 48 kB of image). */
  maxAvatarLength: 65_536,
} as const;

/** The front matter of a document, split from its content. */
interface FrontMatterBlock {
  yaml: string;
  /** The document with the block replaced by as many blank lines, so later line numbers still match. */
  body: string;
}

const opening = /^\uFEFF?---[ \t]*\r?\n/;
const closing = /^(?:---|\.\.\.)[ \t]*$/;

/** The block at the very top of `markdown`, or undefined when there is none (or it is never closed). */
function splitFrontMatter(markdown: string): FrontMatterBlock | undefined {
  const start = opening.exec(markdown);
  if (!start) return undefined;
  const lines = markdown.slice(start[0].length).split('\n');
  // The first `---` (or `...`) line closes it (a linear scan of at most the 100,000 characters of a document).
  const end = lines.findIndex((line) => closing.test(line.replace(/\r$/, '')));
  if (end < 0) return undefined;
  // A document may also begin with a rule (`---` then text, then another rule): a block is front
  // matter only when its first line (past blank and comment lines) is a `key:`.
  const firstLine = lines.slice(0, end).find((line) => !/^\s*(#.*)?\r?$/.test(line));
  if (firstLine !== undefined && !/^["']?[\w-]+["']?[ \t]*:(\s|$)/.test(firstLine)) return undefined;
  return { yaml: lines.slice(0, end).join('\n'), body: '\n'.repeat(end + 2) + lines.slice(end + 1).join('\n') };
}

export interface FrontMatter {
  /** Request fields the front matter sets, checked against the request schema. */
  fields: Partial<GenerateBodyInput>;
  creator: CreatorOptions;
  /** Keys that are neither a request field nor a creator key (blog front matter has many): ignored, and told. */
  ignoredKeys: string[];
  /** The document with the block replaced by as many blank lines: the content the cards show. */
  content: string;
}

const creatorKeys = ['title', 'subtitle', 'author', 'handle', 'avatar', 'date', 'tags', 'cover', 'signature', 'end'] as const;
const requestKeys = new Set(Object.keys(GenerateBody.properties).filter((key) => key !== 'markdown'));

/**
 * Reads the front matter of `markdown`, or undefined when the document has none. Throws an
 * invalid_request CardError naming the line and key of the first thing it cannot accept.
 */
export function readFrontMatter(markdown: string): FrontMatter | undefined {
  const block = splitFrontMatter(markdown);
  if (!block) return undefined;
  if (block.yaml.length > frontMatterLimits.maxLength) {
    throw invalidRequest(`The front matter is ${block.yaml.length} characters; at most ${frontMatterLimits.maxLength} are accepted.`);
  }
  const lineCounter = new LineCounter();
  // Core schema: plain scalars are strings, numbers, booleans and null, never dates or objects of
  // a custom tag; an unknown tag (!!js/function, !foo) is an error rather than a string.
  // logLevel 'error': a list or mapping used as a key deeper in a value is stringified quietly, not
  // told as a process warning in the service's log for every request that sends one.
  const document = parseDocument(block.yaml, { lineCounter, schema: 'core', customTags: [], uniqueKeys: true, prettyErrors: false, version: '1.2', logLevel: 'error' });
  // The block's first line is line 2 of the document (after `---`).
  const lineOf = (offset: number) => lineCounter.linePos(offset).line + 1;
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem) {
    // A repeated key is named: the creator looks for the key, not for "Map keys must be unique".
    const key = problem.code === 'DUPLICATE_KEY' ? `, key ${JSON.stringify(/^[^:\n]*/.exec(block.yaml.slice(problem.pos[0]))![0].trim().slice(0, 40))}` : '';
    throw invalidRequest(`The front matter is not valid YAML at line ${lineOf(problem.pos[0])}${key}: ${firstLine(problem.message)}`);
  }
  if (document.contents === null) return { fields: {}, creator: {}, ignoredKeys: [], content: block.body };
  if (!isMap(document.contents)) throw invalidRequest('The front matter at line 2 must be "key: value" lines.');
  let data: Record<string, unknown>;
  try {
    // Aliases may not multiply the little text there is into a lot (the "billion laughs").
    data = document.toJS({ maxAliasCount: 10 }) as Record<string, unknown>;
  } catch (error) {
    throw invalidRequest(`The front matter is not accepted: ${firstLine((error as Error).message)}`);
  }
  const fields: Record<string, unknown> = {};
  const creator: Record<string, unknown> = {};
  const ignoredKeys: string[] = [];
  for (const pair of document.contents.items as Pair[]) {
    const line = lineOf((pair.key as { range?: [number] } | null)?.range?.[0] ?? 0);
    if (!isScalar(pair.key)) throw invalidRequest(`The front matter at line ${line}: a key must be a word, e.g. "title:"; got a list or mapping.`);
    const key = String(pair.key.value);
    const at = `The front matter at line ${line}, key "${key}"`;
    const value = data[key] ?? null;
    if (requestKeys.has(key)) {
      if (!validField()(({ [key]: value }))) throw invalidRequest(`${at}: ${validationMessage(validField().errors ?? [], { [key]: value }, GenerateBody)}`);
      fields[key] = value;
    } else if ((creatorKeys as readonly string[]).includes(key)) {
      creator[key] = creatorValue(key as (typeof creatorKeys)[number], value, at);
    } else {
      ignoredKeys.push(key);
    }
  }
  return { fields: fields as Partial<GenerateBodyInput>, creator: creator as CreatorOptions, ignoredKeys, content: block.body };
}

let validator: ValidateFunction<Partial<GenerateBodyInput>> | undefined;
/** The request schema's validator, compiled by the first document with front matter. */
const validField = () => (validator ??= new Ajv(requestValidationOptions).compile<Partial<GenerateBodyInput>>(GenerateBody));

/** One creator key's value, checked: its type and bound, or a 400 naming the line and key. */
function creatorValue(key: (typeof creatorKeys)[number], value: unknown, at: string): unknown {
  const text = (maxLength: number) => {
    if (typeof value === 'number') value = String(value);
    if (typeof value !== 'string') throw invalidRequest(`${at}: must be a text; got ${describe(value)}.`);
    const trimmed = value.trim();
    if (trimmed.length > maxLength) throw invalidRequest(`${at}: is ${trimmed.length} characters; at most ${maxLength} are accepted.`);
    return trimmed;
  };
  const { maxTextLength } = frontMatterLimits;
  switch (key) {
    case 'title':
    case 'end':
      return text(maxTextLength);
    case 'subtitle':
    case 'author':
    case 'handle':
    case 'date':
      return text(maxTextLength / 2);
    case 'cover':
      if (typeof value !== 'boolean') throw invalidRequest(`${at}: must be true or false; got ${describe(value)}.`);
      return value;
    case 'signature':
      if (typeof value === 'boolean') return value;
      return text(maxTextLength);
    case 'tags':
      return tagList(value, at);
    case 'avatar':
      return avatar(value, at);
  }
}

function tagList(value: unknown, at: string): string[] {
  // `tags: [a, b]`, a list of lines, or `tags: a, b` (a comma- or space-separated text, `#` optional).
  const items = typeof value === 'string' ? value.split(/[,，\s]+/) : Array.isArray(value) ? value : undefined;
  if (!items || items.some((item) => typeof item !== 'string' && typeof item !== 'number')) {
    throw invalidRequest(`${at}: must be a list of texts, e.g. [cards, 笔记]; got ${describe(value)}.`);
  }
  const tags = items.map((item) => String(item).trim().replace(/^#/, '')).filter((tag) => tag !== '');
  const { maxTags, maxTagLength } = frontMatterLimits;
  if (tags.length > maxTags) throw invalidRequest(`${at}: has ${tags.length} tags; at most ${maxTags} are accepted.`);
  const long = tags.find((tag) => tag.length > maxTagLength);
  if (long !== undefined) throw invalidRequest(`${at}: the tag ${JSON.stringify(long.slice(0, 40))} is ${long.length} characters; at most ${maxTagLength} are accepted.`);
  return tags;
}

function avatar(value: unknown, at: string): string {
  if (typeof value !== 'string') throw invalidRequest(`${at}: must be a data: URI or an http(s) address of an image; got ${describe(value)}.`);
  const trimmed = value.trim();
  if (trimmed.length > frontMatterLimits.maxAvatarLength) {
    throw invalidRequest(`${at}: is ${trimmed.length} characters; at most ${frontMatterLimits.maxAvatarLength} are accepted.`);
  }
  if (dataImageUri.test(trimmed)) return trimmed;
  if (/^https?:\/\//i.test(trimmed) && URL.canParse(trimmed)) return trimmed;
  throw invalidRequest(`${at}: must be a data:image/(png|jpeg|gif|webp);base64 URI or an http(s) address of an image; got ${describe(trimmed)}.`);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `a text of ${value.length} characters` : JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'nothing';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${String(value)}`;
}

const firstLine = (message: string) => message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '').trim();
