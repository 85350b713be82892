// Remote mode of the MCP server: calls a running cardwright (CARDWRIGHT_URL, CARDWRIGHT_API_KEY)
// over its HTTP API, then downloads the stored images so the client gets them as image content.
import type { ThemeListing } from '../cards/themes/listing.js';
import type { StoredImage } from '../cards/storage/store-all.js';
import type { CardBackend, CardResult } from './backend.js';
import type { JobClient } from './batch-tool.js';
import type { JobView } from '../jobs/job.js';
import { contentTypeOf, extensionOf } from '../cards/storage/storage.js';
import { ToolError } from './tool-errors.js';

export class RemoteBackend implements CardBackend, JobClient {
  readonly mode = 'remote';
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs = 120_000,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  get description(): string {
    return `rendered by the cardwright service at ${this.baseUrl}`;
  }

  async generate(body: Record<string, unknown>): Promise<CardResult> {
    const answer = await this.call<{ images: StoredImage[]; previewUrl?: string; warnings?: string[] }>('/api/generate', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': this.apiKey },
      body: JSON.stringify(body),
    });
    const images = answer.images.map((image) => ({ ...image, mimeType: mimeTypeOf(image.fileName), read: () => this.download(image) }));
    return { images, previewUrl: answer.previewUrl, warnings: answer.warnings ?? [] };
  }

  async submitJob(body: { requests: unknown[] }): Promise<{ id: string }> {
    return this.call<{ id: string }>('/api/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': this.apiKey },
      body: JSON.stringify(body),
    });
  }

  async job(id: string): Promise<JobView> {
    return this.call<JobView>(`/api/jobs/${encodeURIComponent(id)}`, { headers: { 'x-api-key': this.apiKey } });
  }

  async themes(): Promise<ThemeListing> {
    return this.call<ThemeListing>('/api/themes', {});
  }

  async close(): Promise<void> {}

  /** One API call; an error answer becomes a ToolError with the API's label and message. */
  private async call<T>(route: string, init: RequestInit): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${route}`, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      throw new ToolError('unreachable', `cardwright at ${this.baseUrl} did not answer (${(error as Error).cause ?? (error as Error).message}).`);
    }
    const text = await response.text();
    let json: { error?: string; message?: string } | null;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ToolError('bad_response', `${route} answered HTTP ${response.status} with something that is not JSON.`);
    }
    if (!response.ok) throw new ToolError(json?.error ?? `http_${response.status}`, json?.message ?? `${route} answered HTTP ${response.status}.`);
    return json as T;
  }

  private async download(image: StoredImage): Promise<Buffer> {
    const response = await fetch(image.url, { signal: AbortSignal.timeout(this.timeoutMs) }).catch((error: Error) => {
      throw new ToolError('download_failed', `${image.url} could not be downloaded (${error.cause ?? error.message}).`);
    });
    if (!response.ok) throw new ToolError('download_failed', `${image.url} answered HTTP ${response.status}.`);
    return Buffer.from(await response.arrayBuffer());
  }
}

/** The type of a stored image, from the extension of its object name (screenshots/<name>.<ext>). */
function mimeTypeOf(fileName: string): string {
  const extension = fileName.slice(fileName.lastIndexOf('.') + 1);
  const format = (Object.keys(extensionOf) as (keyof typeof extensionOf)[]).find((key) => extensionOf[key] === extension);
  return contentTypeOf[format ?? 'png'];
}
