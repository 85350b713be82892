// The MCP tools' definitions. The render tool's input schema is the API's own request schema
// (GenerateBody, with plain `type` lists: see tool-schema.ts) plus what only the tool has: `path`,
// how many images to inline, and in local mode the output folder. Each mode states what the tools
// really do: local mode writes files on this machine, remote mode calls a service elsewhere.
import { Type } from '@sinclair/typebox';
import { GenerateBody } from '../cards/request/schema.js';
import { maxJobRequests } from '../jobs/job.js';
import { withPlainTypes } from './tool-schema.js';

export const renderToolName = 'render_cards';
export const themesToolName = 'list_themes';
/** Remote mode only: a batch is a job of the service (POST /api/jobs). */
export const batchToolName = 'render_batch';
export const batchWait = { defaultSeconds: 60, maxSeconds: 600 };

export const inlineChoices = ['all', 'first', 'none'] as const;
export type InlineChoice = (typeof inlineChoices)[number];
export const inlineDefaults = { inline: 'first' as InlineChoice, maxBytes: 2 * 1024 * 1024, maxBytesLimit: 64 * 1024 * 1024 };

const toolOnlyFields = {
  path: Type.Optional(
    Type.String({ description: 'a Markdown file to render instead of `markdown`, read by the MCP server (relative to its working folder)' }),
  ),
  inline: Type.Optional(
    Type.Unsafe<InlineChoice>({
      type: 'string',
      enum: [...inlineChoices],
      default: inlineDefaults.inline,
      description: 'which images to return as image content besides their URLs: all, first (default) or none',
    }),
  ),
  inlineMaxBytes: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: inlineDefaults.maxBytesLimit,
      default: inlineDefaults.maxBytes,
      description: 'at most this many image bytes are inlined in one answer; the images past it are given by URL only',
    }),
  ),
};

const localOnlyFields = {
  outputDir: Type.Optional(Type.String({ description: 'folder the numbered image files are written to (created if missing)' })),
  clean: Type.Optional(
    Type.Boolean({ description: 'remove numbered files of the same name left in outputDir by an earlier, longer result (without it they are an error)' }),
  ),
};

/** Arguments only local mode takes: a remote service keeps its images itself. */
export const localOnlyArguments = Object.keys(localOnlyFields);

/** Plain JSON (TypeBox marks its schemas with symbol keys, which JSON leaves out). */
const plainJson = <T>(schema: T): T => JSON.parse(JSON.stringify(schema)) as T;

export type BackendMode = 'local' | 'remote';

export function toolDefinitions(mode: BackendMode, backendDescription: string) {
  const input = Type.Object(
    { ...GenerateBody.properties, ...toolOnlyFields, ...(mode === 'local' ? localOnlyFields : {}) },
    { additionalProperties: true },
  );
  const remote = mode === 'remote';
  return [
    {
      name: renderToolName,
      title: 'Render Markdown to card images',
      description:
        'Turns Markdown into styled card images (Xiaohongshu/RedNote-style knowledge cards) and returns their URLs ' +
        `and, by default, the first image itself. Takes the fields of POST /api/generate, all optional; give \`markdown\` or \`path\`. Images are ${backendDescription}. ` +
        `Call ${themesToolName} for the theme IDs and their modes. splitMode "autoSplit" makes as many same-sized cards as the content needs. ` +
        'watermark (e.g. "@handle") marks every card with the author\'s handle or a small logo.',
      inputSchema: plainJson(withPlainTypes(input)),
      // Local: overwrites files of the same name in outputDir. Remote: stores new images on the
      // service (new names, nothing overwritten), which is a system outside this machine.
      annotations: { readOnlyHint: false, destructiveHint: !remote, idempotentHint: false, openWorldHint: remote },
    },
    ...(remote ? [batchToolDefinition()] : []),
    {
      name: themesToolName,
      title: 'List card themes',
      description: 'Lists every theme (id, name, modes; the first mode is the default) and the accepted theme aliases.',
      inputSchema: { type: 'object' as const, properties: {} },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: remote },
    },
  ];
}

function batchToolDefinition() {
  const input = Type.Object({
    requests: Type.Optional(
      Type.Array(withPlainTypes(GenerateBody), { minItems: 1, maxItems: maxJobRequests, description: `1 to ${maxJobRequests} requests, each with the fields of ${renderToolName} (no path)` }),
    ),
    jobId: Type.Optional(Type.String({ maxLength: 64, description: 'instead of requests: the id of a batch submitted earlier, to check on it (and wait for it)' })),
    waitSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: batchWait.maxSeconds,
        default: batchWait.defaultSeconds,
        description: 'how long to wait for the batch to finish; 0 returns its id at once. A batch still running then is given with its id, to check on later',
      }),
    ),
  });
  return {
    name: batchToolName,
    title: 'Render many documents as one batch job',
    description:
      `Submits up to ${maxJobRequests} render requests as one job of the cardwright service and waits for it (up to waitSeconds), ` +
      "then returns each request's answer (its images' URLs, or its error) in order. A job that is still running is returned with its id: call again with jobId to check on it. " +
      'Every request is checked first: one bad request refuses the whole batch, naming its index.',
    inputSchema: plainJson(input),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  };
}
