// The success answer of POST /api/generate and POST /api/generate/cover, in MD2Card's shape so its
// clients (its MCP server, n8n and Coze flows, scripts) read it unchanged: `success`, `images` with
// `size` in KB, `cost` and `previewUrl` (docs/md2card.md), plus our exact `bytes` and `warnings`.
import type { StoredImage } from '../cards/index.js';
import { cardsIn } from '../cards/cards-made.js';

export interface GenerateAnswer {
  success: true;
  images: StoredImage[];
  /** What MD2Card charges in credits: one per card made (a PDF's pages each). Nothing is charged here; it counts the cards. */
  cost: number;
  /** The editor page with this request's settings and Markdown. */
  previewUrl: string;
  warnings?: string[];
}

export function generateAnswer(images: StoredImage[], previewUrl: string, warnings: string[]): GenerateAnswer {
  return { success: true, images, cost: cardsIn(images), previewUrl, ...(warnings.length > 0 ? { warnings } : {}) };
}
