// A real HTTP server on 127.0.0.1 that serves test images and counts every request it gets, so a
// test can prove an image was fetched (or, for SSRF vectors, that nothing ever reached it).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

export interface LocalImageServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Requests received, in order, as paths. */
  hits: string[];
  close(): Promise<void>;
}

/** A solid-colour PNG of the given size. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) png.data.set([...rgb, 255], i * 4);
  return PNG.sync.write(png);
}

export const redPng = solidPng(200, 100, [230, 20, 20]);

/** A PNG of random pixels: it does not compress, so it makes big card images. */
function noisePng(size: number): Buffer {
  const png = new PNG({ width: size, height: size });
  for (let i = 0; i < png.data.length; i++) png.data[i] = i % 4 === 3 ? 255 : Math.floor(Math.random() * 256);
  return PNG.sync.write(png);
}

const noise = noisePng(600);

/** A 100×50 red rectangle as SVG. */
export const redSvg = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="#e61414"/></svg>';

/** 1.7 KB of nested <use>: drawing it repeats one square 10^11 times. */
export function useBombSvg(levels = 11): string {
  let body = '<path id="a0" d="M0 0h1v1z"/>';
  for (let i = 1; i <= levels; i++) body += `<g id="a${i}">${`<use href="#a${i - 1}"/>`.repeat(10)}</g>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400">${body}<use href="#a${levels}"/></svg>`;
}

/**
 * Routes: /red.png (image/png), /noise.png (600 px of random pixels), /red.svg, /bomb.svg (a <use> bomb), /external.svg (refers to
 * /inside-svg.png of this server), /redirect?to=<url> (302), /html (text/html), /fake.png (claims
 * image/png, sends HTML), /slow (answers after 5 s, with nothing), /late.png (/red.png after 3 s), anything else 404.
 */
export async function startImageServer(host = '127.0.0.1'): Promise<LocalImageServer> {
  const hits: string[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://local');
    hits.push(url.pathname);
    switch (url.pathname) {
      case '/red.png':
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': redPng.length });
        return response.end(redPng);
      case '/noise.png':
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': noise.length });
        return response.end(noise);
      case '/red.svg':
        response.writeHead(200, { 'content-type': 'image/svg+xml' });
        return response.end(redSvg);
      case '/bomb.svg':
        response.writeHead(200, { 'content-type': 'image/svg+xml' });
        return response.end(useBombSvg());
      case '/external.svg':
        // An SVG that would load another image of this server if it were drawn as it is.
        response.writeHead(200, { 'content-type': 'image/svg+xml' });
        return response.end(`<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><image href="http://${request.headers.host}/inside-svg.png" width="100" height="50"/></svg>`);
      case '/redirect':
        response.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        return response.end();
      case '/html':
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end('<html><body>not an image</body></html>');
      case '/fake.png':
        response.writeHead(200, { 'content-type': 'image/png' });
        return response.end('<html><script>alert(1)</script></html>');
      case '/late.png': {
        // A slow image host: the image comes, but only after 3 s.
        const timer = setTimeout(() => response.writeHead(200, { 'content-type': 'image/png', 'content-length': redPng.length }).end(redPng), 3000);
        response.on('close', () => clearTimeout(timer));
        return;
      }
      case '/slow': {
        const timer = setTimeout(() => response.end(), 5000);
        response.on('close', () => clearTimeout(timer));
        return;
      }
      default:
        response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
