// `cardwright render notes.md -o out/`: renders a Markdown file (or standard input) to numbered card
// images on disk, with the service's pipeline running in this process; no server is involved.
import fs from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { loadCommandConfig } from '../config.js';
import { baseNameOf, writeCardFiles } from '../cards/storage/card-files.js';
import { parseCommandLine, requestNumberOption, stringOption, UsageError, type ParsedCommandLine } from './command-line.js';
import { renderCommand } from './commands.js';
import { checkDirectory } from '../cards/storage/make-directory.js';
import { kilobytes } from '../cards/storage/store-all.js';
import { cardsIn } from '../cards/cards-made.js';
import { checkRequest } from '../cards/request/check.js';

export async function runRender(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(renderCommand, args);
  const remote = values.remote === true;
  if (positionals.length === 0) throw new UsageError('render needs a Markdown file, or - to read standard input.');
  if (positionals.length > 1 && !remote) {
    throw new UsageError(`render takes one input (several with --remote); got ${positionals.length}: ${positionals.join(', ')}.`);
  }
  const input = positionals[0]!;
  // Every option is a field of POST /api/generate; the API's own validation checks them.
  const fields = {
    theme: stringOption(values.theme),
    themeMode: stringOption(values.mode),
    splitMode: stringOption(values.split),
    width: requestNumberOption(values.width),
    height: requestNumberOption(values.height),
    format: stringOption(values.format),
    scale: requestNumberOption(values.scale),
    // An option not given leaves the field to the document's front matter (docs/api.md#front-matter).
    mdxMode: values.mdx === true ? true : undefined,
    overHiddenMode: values['over-hidden'] === true ? true : undefined,
    fontFamily: stringOption(values.font),
    hashtags: values['no-hashtags'] === true ? false : undefined,
    watermark: stringOption(values.watermark),
  };
  if (remote) return runRemoteRender(positionals, fields, values);
  const body = { markdown: await readInput(input), ...fields };

  // Before the render: a folder that cannot hold the cards, or a field the API would refuse, is
  // refused at once, before the renderer (Chromium, the Markdown worker) is even started.
  const outputDir = stringOption(values.out) ?? '.';
  await checkDirectory('--out', outputDir);
  checkRequest(body);
  const { LocalRenderer } = await import('../cards/local-renderer.js');
  const local = LocalRenderer.open(loadCommandConfig());
  try {
    const { images, warnings } = await local.render(body);
    // Said on stderr, as the API says them in `warnings`, so stdout stays the list of files.
    for (const warning of warnings) process.stderr.write(`cardwright: warning: ${warning}\n`);
    const baseName = stringOption(values.name) ?? (input === '-' ? 'card' : baseNameOf(input));
    const files = await writeCardFiles(outputDir, baseName, images, {
      folderName: '--out',
      staleFiles: values.clean === true ? 'remove' : 'refuse',
      removeHint: 'add --clean to remove them',
    });
    if (values.json) {
      // The API's answer shape (README "Command line"), with file paths for URLs and no previewUrl:
      // nothing was stored, so there is no request for the editor to open.
      const described = images.map((image, index) => ({
        file: files[index],
        width: image.width,
        height: image.height,
        size: kilobytes(image.data.length),
        bytes: image.data.length,
        ...(image.pages === undefined ? {} : { pages: image.pages }),
      }));
      const answer = { success: true, images: described, cost: cardsIn(images), ...(warnings.length > 0 ? { warnings } : {}) };
      process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    } else {
      process.stdout.write(files.map((file) => `${file}\n`).join(''));
    }
  } finally {
    await local.close();
  }
}

/** Several files (or one) rendered by the service at CARDWRIGHT_URL as one job; see remote-render.ts. */
async function runRemoteRender(inputs: string[], fields: Record<string, unknown>, values: ParsedCommandLine['values']): Promise<void> {
  const config = loadCommandConfig();
  if (!config.remoteService) throw new UsageError('--remote renders with a cardwright service: set CARDWRIGHT_URL and CARDWRIGHT_API_KEY.');
  if (values.name !== undefined && inputs.length > 1) throw new UsageError('--name names the files of one input; with several, each input\'s files take its own name.');
  const documents = await Promise.all(inputs.map(async (input) => ({ name: input === '-' ? (stringOption(values.name) ?? 'card') : input, markdown: await readInput(input) })));
  for (const document of documents) checkRequest({ ...fields, markdown: document.markdown });
  const outputDir = stringOption(values.out) ?? '.';
  await checkDirectory('--out', outputDir);
  const { renderRemotely } = await import('./remote-render.js');
  const { files, failures } = await renderRemotely(documents, fields, {
    service: config.remoteService,
    outputDir,
    clean: values.clean === true,
    timeoutMs: config.requestTimeoutMs * documents.length + 60_000,
  });
  if (values.json) process.stdout.write(`${JSON.stringify({ success: failures.length === 0, files, ...(failures.length > 0 ? { failures } : {}) }, null, 2)}\n`);
  else process.stdout.write(files.map((file) => `${file}\n`).join(''));
  for (const failure of failures) process.stderr.write(`cardwright: ${failure}\n`);
  if (failures.length > 0) process.exitCode = 1;
}

async function readInput(input: string): Promise<string> {
  if (input === '-') {
    // An empty pipe is almost always a mistake upstream (a failed command, a wrong file): rendering
    // the default card would hide it.
    const markdown = await text(process.stdin);
    if (markdown.trim() === '') throw new UsageError('standard input is empty: pipe Markdown into `cardwright render -`, or give a file.');
    return markdown;
  }
  try {
    return await fs.readFile(input, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${input}: no such file.` : `${input} cannot be read (${code ?? (error as Error).message}).`);
  }
}
