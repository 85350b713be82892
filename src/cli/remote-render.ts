// `cardwright render a.md b.md --remote`: the files are rendered by the cardwright service at
// CARDWRIGHT_URL (key CARDWRIGHT_API_KEY) as one job (POST /api/jobs), and the stored images are
// downloaded into the output folder under each file's own name, as a local render writes them.
// A request the service refused is reported on stderr by its file; the others are still written.
import { invalidRequest } from '../cards/errors.js';
import type { RenderedImage } from '../cards/render/render-cards.js';
import type { StoredImage } from '../cards/storage/store-all.js';
import { baseNameOf, writeCardFiles } from '../cards/storage/card-files.js';
import { extensionOf } from '../cards/storage/storage.js';
import type { JobView } from '../jobs/job.js';

export interface RemoteRenderOptions {
  service: { url: string; apiKey: string };
  outputDir: string;
  clean: boolean;
  /** How long the whole job may take before the command gives up on it. */
  timeoutMs: number;
}

const pollMs = 500;

/** Renders each input's Markdown with `fields`; answers the files written, and the inputs that failed with why. */
export async function renderRemotely(inputs: { name: string; markdown: string }[], fields: Record<string, unknown>, options: RemoteRenderOptions) {
  const baseUrl = options.service.url.replace(/\/+$/, '');
  const headers = { 'content-type': 'application/json', 'x-api-key': options.service.apiKey };
  const submitted = await call<{ id: string }>(`${baseUrl}/api/jobs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ requests: inputs.map(({ markdown }) => ({ ...fields, markdown })) }),
  });
  const givesUp = Date.now() + options.timeoutMs;
  let job = await call<JobView>(`${baseUrl}/api/jobs/${submitted.id}`, { headers });
  while (job.state !== 'done' && job.state !== 'failed') {
    if (Date.now() > givesUp) throw new Error(`the job ${submitted.id} did not finish within ${options.timeoutMs} ms; it is still ${job.state} at ${baseUrl}/api/jobs/${submitted.id}.`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    job = await call<JobView>(`${baseUrl}/api/jobs/${submitted.id}`, { headers });
  }

  const files: string[] = [];
  const failures: string[] = [];
  for (const [index, input] of inputs.entries()) {
    const result = job.results.find((answer) => answer.index === index)!;
    const body = result.body as { images?: StoredImage[]; error?: string; message?: string; warnings?: string[] };
    if (result.status !== 200 || !body.images) {
      failures.push(`${input.name}: ${body.error ?? `HTTP ${result.status}`}: ${body.message ?? ''}`);
      continue;
    }
    for (const warning of body.warnings ?? []) process.stderr.write(`cardwright: warning: ${input.name}: ${warning}\n`);
    const images = await Promise.all(body.images.map(download));
    files.push(...(await writeCardFiles(options.outputDir, baseNameOf(input.name), images, { folderName: '--out', staleFiles: options.clean ? 'remove' : 'refuse', removeHint: 'add --clean to remove them' })));
  }
  return { files, failures };
}

async function download(image: StoredImage): Promise<RenderedImage> {
  const response = await fetch(image.url);
  if (!response.ok) throw new Error(`${image.url} answered HTTP ${response.status}.`);
  const extension = image.fileName.slice(image.fileName.lastIndexOf('.') + 1);
  const format = (Object.keys(extensionOf) as (keyof typeof extensionOf)[]).find((key) => extensionOf[key] === extension) ?? 'png';
  return { data: Buffer.from(await response.arrayBuffer()), format, width: image.width, height: image.height, alt: image.alt, ...(image.pages === undefined ? {} : { pages: image.pages }) };
}

/** One API call; a 400 is the request's fault (exit status 2), anything else a failure that may pass later. */
async function call<T>(url: string, init: RequestInit): Promise<T> {
  const response = await fetch(url, init).catch((error: Error) => {
    throw new Error(`the service did not answer (${String(error.cause ?? error.message)}).`);
  });
  const json = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
  if (response.status === 400) throw invalidRequest(json.message ?? 'the service refused the request.');
  if (!response.ok) throw new Error(`${json.error ?? `HTTP ${response.status}`}: ${json.message ?? 'the service refused the request.'}`);
  return json as T;
}
