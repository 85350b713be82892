// The MCP tools' definitions. The render tool's input schema is the API's own request schema
// (GenerateBody) plus `path` and `outputDir`, so an agent sees exactly the fields, bounds and
// defaults that POST /api/generate accepts.
import { Type } from '@sinclair/typebox';
import { GenerateBody } from '../cards/request/schema.js';

export const renderToolName = 'render_cards';
export const themesToolName = 'list_themes';

const RenderToolInput = Type.Object(
  {
    ...GenerateBody.properties,
    path: Type.Optional(
      Type.String({ description: 'a Markdown file to render instead of `markdown`, read by the MCP server (relative to its working folder)' }),
    ),
    outputDir: Type.Optional(Type.String({ description: 'local mode only: folder the numbered image files are written to' })),
  },
  { additionalProperties: true },
);

/** Plain JSON (TypeBox marks its schemas with symbol keys, which JSON leaves out). */
const plainJson = <T>(schema: T): T => JSON.parse(JSON.stringify(schema)) as T;

export function toolDefinitions(backendDescription: string) {
  return [
    {
      name: renderToolName,
      title: 'Render Markdown to card images',
      description:
        'Turns Markdown into styled card images (Xiaohongshu/RedNote-style knowledge cards) and returns their URLs ' +
        `and the images. Takes the fields of POST /api/generate, all optional; give \`markdown\` or \`path\`. Images are ${backendDescription}. ` +
        `Call ${themesToolName} for the theme IDs and their modes. splitMode "autoSplit" makes as many same-sized cards as the content needs.`,
      inputSchema: plainJson(RenderToolInput),
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    {
      name: themesToolName,
      title: 'List card themes',
      description: 'Lists every theme (id, name, modes; the first mode is the default) and the accepted theme aliases.',
      inputSchema: { type: 'object' as const, properties: {} },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  ];
}
