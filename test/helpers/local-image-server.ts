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

/**
 * Routes: /red.png (image/png), /redirect?to=<url> (302), /html (text/html), /fake.png (claims
 * image/png, sends HTML), /slow (answers after 5 s), anything else 404.
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
      case '/redirect':
        response.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        return response.end();
      case '/html':
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end('<html><body>not an image</body></html>');
      case '/fake.png':
        response.writeHead(200, { 'content-type': 'image/png' });
        return response.end('<html><script>alert(1)</script></html>');
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
