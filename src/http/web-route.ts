// The web page: GET / (the live editor), its own files under /assets/ (web/), the preview frame
// document and the bundled fonts that document loads, POST /api/preview and the theme thumbnails.
//
// The preview frame is the renderer's own shell document (same fonts, base CSS and theme CSS,
// byte for byte), so the page previews cards with exactly the CSS the images are rendered with.
// The page shows it in an iframe sandboxed without scripts, and the frame's Content-Security-Policy
// allows no script and no request except the service's own fonts and the previews' images: a
// card's inline style cannot make the visitor's browser fetch anything from elsewhere.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { nodeModulesDir, projectRoot } from '../paths.js';
import type { Storage } from '../cards/storage/storage.js';
import { fontFaceCss, resolveFontFile } from '../cards/themes/fonts.js';
import { previewImagesPath } from './preview-images.js';
import { registerPreviewRoute, type PreviewRouteDeps } from './preview-route.js';
import { registerThemeThumbnailRoute } from './theme-thumbnails.js';

export const webDir = path.join(projectRoot, 'web');

export interface WebRouteDeps extends PreviewRouteDeps {
  storage: Storage;
}

const fontTypes: Record<string, string> = { '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.otf': 'font/otf' };

/**
 * Libraries the page imports as ES modules, served from node_modules at /vendor/<name>.js (the page
 * has no build step): fflate packs a result's images into one ZIP in the browser.
 */
const vendorModules: Record<string, string> = { 'fflate.js': path.join(nodeModulesDir, 'fflate', 'esm', 'browser.js') };

/**
 * The page may load only its own files, plus generated images from wherever storage serves them;
 * it reads them (for the ZIP of a result) from there too, which an S3 bucket allows with CORS.
 */
function pageSecurityPolicy(storageOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: ${storageOrigin}`,
    `connect-src 'self' ${storageOrigin}`,
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The preview frame: no script at all; inline styles (cards carry their size in one); own fonts;
 * data: images and the previews' own images (preview-images.ts), by their path alone.
 */
function frameSecurityPolicy(host: string): string {
  // A host-source without a scheme takes the frame's own; a Host header that is not a plain host
  // (and port) is left out rather than written into the policy.
  const previewImages = /^[\w.-]+(?::\d+)?$|^\[[\da-f:.]+\](?::\d+)?$/i.test(host) ? ` ${host}${previewImagesPath}` : '';
  return `default-src 'none'; style-src 'self' 'unsafe-inline'; font-src 'self'; img-src data:${previewImages}; frame-ancestors 'self'`;
}

/**
 * The render pages' document with every bundled face, by the stylesheet the editor itself loads
 * (so the visitor's browser fetches it once): render pages declare the faces of new characters
 * only as cards bring them, and the frame has no script to do that with.
 */
function previewFrameDocument(shellHtml: string): string {
  return shellHtml.replace('</head>', '<link rel="stylesheet" href="/fonts/faces.css"></head>');
}

export async function registerWebRoutes(app: FastifyInstance, deps: WebRouteDeps): Promise<void> {
  const storageOrigin = new URL(deps.storage.url('screenshots/probe.png')).origin;
  const pagePolicy = pageSecurityPolicy(storageOrigin);
  const indexHtml = await fs.readFile(path.join(webDir, 'index.html'), 'utf8');
  // Fixed for the life of the process: compressed once, off the main thread, on first use (not at
  // start-up, where the CPU goes to the browser), and revalidated by ETag.
  const frameDocument = onFirstUse(() => precompressed(previewFrameDocument(deps.cards.shell.html), 'text/html; charset=utf-8'));
  const fontFaces = onFirstUse(() => precompressed(fontFaceCss(), 'text/css; charset=utf-8'));

  registerPreviewRoute(app, deps);
  registerThemeThumbnailRoute(app, deps.cards);

  app.get('/', async (_request, reply) => {
    // The editor previews as its visitor types: its browser starts now, not on the first keystroke.
    deps.cards.expectPreviews();
    reply.header('Content-Security-Policy', pagePolicy);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('Cache-Control', 'no-cache');
    return reply.type('text/html; charset=utf-8').send(indexHtml);
  });

  await app.register(fastifyStatic, {
    root: webDir,
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    list: false,
    dotfiles: 'deny',
    setHeaders(reply) {
      reply.header('Cache-Control', 'no-cache');
      reply.header('X-Content-Type-Options', 'nosniff');
    },
  });

  const vendorFiles = new Map(
    Object.entries(vendorModules).map(([name, file]) => [name, onFirstUse(async () => precompressed(await fs.readFile(file, 'utf8'), 'text/javascript; charset=utf-8'))] as const),
  );
  app.get<{ Params: { name: string } }>('/vendor/:name', async (request, reply) => {
    const file = vendorFiles.get(request.params.name);
    if (!file) return reply.callNotFound();
    return sendPrecompressed(request, reply, await file());
  });

  app.get('/preview/frame', async (request, reply) => {
    reply.header('Content-Security-Policy', frameSecurityPolicy(request.host));
    return sendPrecompressed(request, reply, await frameDocument());
  });

  // The bundled fonts' @font-face rules, for the page's own editor and labels (CJK and emoji
  // look the same as on the cards, whatever fonts the visitor's system has).
  app.get('/fonts/faces.css', async (request, reply) => sendPrecompressed(request, reply, await fontFaces()));

  // The shell document refers to its fonts as /fonts/<package>/files/<file>, as the renderer serves them.
  app.get('/fonts/*', async (request, reply) => {
    const file = resolveFontFile(request.url.split('?')[0] ?? '');
    const body = file && (await fs.readFile(file).catch(() => undefined));
    if (!file || !body) return reply.callNotFound();
    reply.header('Cache-Control', 'public, max-age=86400');
    return reply.type(fontTypes[path.extname(file)] ?? 'application/octet-stream').send(body);
  });
}

interface Precompressed {
  plain: Buffer;
  gzip: Buffer;
  etag: string;
  type: string;
}

const gzipAsync = promisify(gzip);

/** `make()` called once, when first asked for. */
function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

async function precompressed(text: string, type: string): Promise<Precompressed> {
  const plain = Buffer.from(text, 'utf8');
  return { plain, gzip: await gzipAsync(plain), etag: `"${createHash('sha256').update(plain).digest('base64url').slice(0, 22)}"`, type };
}

/** Sends a fixed document: 304 when the browser has it, gzip when the browser accepts it. */
function sendPrecompressed(request: FastifyRequest, reply: FastifyReply, document: Precompressed): FastifyReply {
  reply.header('ETag', document.etag);
  reply.header('Cache-Control', 'no-cache');
  reply.header('Vary', 'Accept-Encoding');
  reply.header('X-Content-Type-Options', 'nosniff');
  if (request.headers['if-none-match'] === document.etag) return reply.status(304).send();
  reply.type(document.type);
  if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
    return reply.header('Content-Encoding', 'gzip').send(document.gzip);
  }
  return reply.send(document.plain);
}
