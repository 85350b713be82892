// The render_cards tool: checks the tool's own arguments (path, inline, inlineMaxBytes, and in
// local mode outputDir and clean), renders with the backend and answers with every image's URL
// plus the images asked to be inlined, up to a byte cap: 26 cards inlined at once are megabytes
// of base64 that a client passes whole to its model.
import fs from 'node:fs/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { baseNameOf } from '../cards/storage/card-files.js';
import { cardsIn } from '../cards/cards-made.js';
import type { CardBackend, CardImage } from './backend.js';
import { coerceArguments } from './coerce-arguments.js';
import { ToolError } from './tool-errors.js';
import { inlineChoices, inlineDefaults, localOnlyArguments, type InlineChoice } from './tools.js';

export async function renderCards(backend: CardBackend, args: Record<string, unknown>): Promise<CallToolResult> {
  const { path: markdownFile, outputDir, clean, inline, inlineMaxBytes, ...body } = coerceArguments(backend.mode, args);
  if (backend.mode === 'remote') {
    const given = localOnlyArguments.filter((name) => args[name] !== undefined && args[name] !== null);
    if (given.length > 0) {
      throw new ToolError(
        'invalid_request',
        `${given.join(' and ')} ${given.length === 1 ? 'is' : 'are'} for local rendering only: the cards of this MCP server are ${backend.description}, which stores the images and answers with their URLs. Leave ${given.join(' and ')} out, or unset CARDWRIGHT_URL to render and write files here.`,
      );
    }
  }
  if (markdownFile !== undefined && typeof markdownFile !== 'string') throw new ToolError('invalid_request', 'path must be a file path (a string).');
  if (outputDir !== undefined && typeof outputDir !== 'string') throw new ToolError('invalid_request', 'outputDir must be a folder path (a string).');
  if (clean !== undefined && typeof clean !== 'boolean') throw new ToolError('invalid_request', 'clean must be true or false.');
  const inlined = inlineChoice(inline);
  const maxBytes = inlineByteCap(inlineMaxBytes);
  if (markdownFile !== undefined) {
    if (body.markdown !== undefined && body.markdown !== null && body.markdown !== '') {
      throw new ToolError('invalid_request', 'Give either markdown or path, not both.');
    }
    body.markdown = await fs.readFile(markdownFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ToolError('invalid_request', `path ${markdownFile} cannot be read (${error.code ?? error.message}).`);
    });
  }
  const baseName = markdownFile ? baseNameOf(markdownFile) : `cards-${Date.now()}`;
  const { images, previewUrl, warnings } = await backend.generate(body, baseName, { outputDir, clean });
  const { content, inlinedCount, skipped } = await inlineImages(images, inlined, maxBytes);
  const described = images.map(({ url, fileName, width, height, size, bytes, alt, pages }, index) => ({
    url,
    fileName,
    width,
    height,
    size,
    bytes,
    alt,
    ...(pages === undefined ? {} : { pages }),
    inlined: index < inlinedCount,
  }));
  const note = skipped > 0 ? `${skipped} image(s) past inlineMaxBytes (${maxBytes} bytes) are given by URL only.` : undefined;
  // The API's answer shape (MD2Card's fields: success, size in KB, cost, previewUrl), so an agent
  // that knows MD2Card's tool reads it unchanged.
  const answer = {
    success: true,
    images: described,
    cost: cardsIn(images),
    ...(previewUrl ? { previewUrl } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(note ? { note } : {}),
  };
  return { content: [{ type: 'text', text: JSON.stringify(answer, null, 2) }, ...content] };
}

function inlineChoice(value: unknown): InlineChoice {
  if (value === undefined || value === null || value === '') return inlineDefaults.inline;
  if (typeof value === 'string' && (inlineChoices as readonly string[]).includes(value)) return value as InlineChoice;
  throw new ToolError('invalid_request', `inline must be one of ${inlineChoices.join(', ')}; got ${JSON.stringify(value)}.`);
}

function inlineByteCap(value: unknown): number {
  if (value === undefined || value === null) return inlineDefaults.maxBytes;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= inlineDefaults.maxBytesLimit) return value;
  throw new ToolError('invalid_request', `inlineMaxBytes must be a whole number of bytes from 0 to ${inlineDefaults.maxBytesLimit}; got ${JSON.stringify(value)}.`);
}

/** The image contents asked for, in card order, stopping before the first image that would pass the cap. */
async function inlineImages(images: CardImage[], inline: InlineChoice, maxBytes: number) {
  const wanted = inline === 'all' ? images : inline === 'first' ? images.slice(0, 1) : [];
  const content: Array<{ type: 'image'; data: string; mimeType: string } | { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } }> = [];
  let bytes = 0;
  for (const image of wanted) {
    if (bytes + image.bytes > maxBytes) break;
    const data = await image.read();
    bytes += data.length;
    // A PDF (format "pdf") is not an image to MCP clients: it goes as an embedded resource.
    content.push(
      image.mimeType.startsWith('image/')
        ? { type: 'image', data: data.toString('base64'), mimeType: image.mimeType }
        : { type: 'resource', resource: { uri: image.url, mimeType: image.mimeType, blob: data.toString('base64') } },
    );
  }
  return { content, inlinedCount: content.length, skipped: wanted.length - content.length };
}
