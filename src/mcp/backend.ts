// What the MCP tools need from cardwright, whichever way it runs: in this process (local) or as a
// remote service (CARDWRIGHT_URL). Both answer with the API's shapes and the API's error messages.
import type { StoredImage } from '../cards/storage/store-all.js';
import type { ThemeListing } from '../cards/themes/listing.js';
import type { BackendMode } from './tools.js';

/**
 * An image as the API answers it (url: public URL remotely, file:// URL of the written file
 * locally; fileName: object name or absolute path), plus what the tool needs to inline it.
 */
export interface CardImage extends StoredImage {
  mimeType: string;
  /** The image's bytes; remote mode downloads them only when asked, for the images that are inlined. */
  read(): Promise<Buffer>;
}

/** Where local mode writes the files. */
export interface OutputOptions {
  outputDir?: string;
  /** Remove numbered files of the same name left by an earlier, longer result. */
  clean?: boolean;
}

/** The API's answer, images downloaded: what the render tool reports. */
export interface CardResult {
  images: CardImage[];
  /** The editor page with this request (remote mode: the service's previewUrl; local mode has none). */
  previewUrl?: string;
  warnings: string[];
}

export interface CardBackend {
  readonly mode: BackendMode;
  /** Where images come from, for the tool descriptions. */
  readonly description: string;
  /** Renders the fields of POST /api/generate; `baseName` names local output files. */
  generate(body: Record<string, unknown>, baseName: string, output?: OutputOptions): Promise<CardResult>;
  themes(): Promise<ThemeListing>;
  close(): Promise<void>;
}
