// Local mode of the MCP server: renders in this process with the service's pipeline and writes the
// cards as numbered files into an output folder; their file:// URLs are the image URLs.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { themeListing } from '../cards/themes/listing.js';
import { writeCardFiles } from '../cards/storage/card-files.js';
import { checkDirectory } from '../cards/storage/make-directory.js';
import { LocalRenderer } from '../cards/local-renderer.js';
import type { Config } from '../config.js';
import { contentTypeOf } from '../cards/storage/storage.js';
import { kilobytes } from '../cards/storage/store-all.js';
import type { CardBackend, CardResult, OutputOptions } from './backend.js';

export class LocalBackend implements CardBackend {
  readonly mode = 'local';
  private readonly local: LocalRenderer;

  /** Folder for the images when a call names none. */
  private readonly defaultOutputDir: string;

  constructor(config: Config) {
    this.local = LocalRenderer.open(config);
    this.defaultOutputDir = config.outputDir;
  }

  get description(): string {
    return `rendered on this machine; files are written to outputDir (default ${this.defaultOutputDir})`;
  }

  async generate(body: Record<string, unknown>, baseName: string, output: OutputOptions = {}): Promise<CardResult> {
    const outputDir = path.resolve(output.outputDir ?? this.defaultOutputDir);
    // Before the render: a folder that cannot hold the cards is refused at once, not after it.
    await checkDirectory('outputDir', outputDir);
    const { images, warnings } = await this.local.render(body);
    const files = await writeCardFiles(outputDir, baseName, images, {
      folderName: 'outputDir',
      staleFiles: output.clean ? 'remove' : 'refuse',
      removeHint: 'pass clean: true to remove them',
    });
    const cardImages = images.map((image, index) => ({
      url: pathToFileURL(files[index]!).href,
      fileName: files[index]!,
      width: image.width,
      height: image.height,
      size: kilobytes(image.data.length),
      bytes: image.data.length,
      alt: image.alt,
      ...(image.pages === undefined ? {} : { pages: image.pages }),
      mimeType: contentTypeOf[image.format],
      read: async () => image.data,
    }));
    return { images: cardImages, warnings };
  }

  async themes() {
    return themeListing(this.local.themes);
  }

  async close(): Promise<void> {
    await this.local.close();
  }
}
