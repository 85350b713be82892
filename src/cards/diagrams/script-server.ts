// The diagram pages' scripts (Mermaid's 5.5 MB bundle, DOMPurify), served from a loopback port of
// this process and fetched by Chromium's own network stack. Answered through the DevTools protocol
// (Fetch.fulfillRequest), the bundle was base64-encoded and written by the service's main
// thread each time a diagram page opened: 150–250 ms of its event loop, /health included, for every
// page, and a page is replaced after each diagram that runs over its time. From here the file is
// streamed from disk in small pieces.
//
// Only the diagram pages' own handler sends a request here (it continues their script requests to
// this port; the pages' own origin is this port, see diagram-page.ts); the port is on 127.0.0.1
// and serves those files alone.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export class ScriptServer {
  private started?: Promise<{ server: http.Server; origin: string }>;

  /** `files`: path on the server → file on disk. */
  constructor(private readonly files: Readonly<Record<string, string>>) {}

  /** Where the files are served (`http://127.0.0.1:<port>`); the server starts on first use. */
  async origin(): Promise<string> {
    return (await this.start()).origin;
  }

  serves(pathname: string): boolean {
    return Object.hasOwn(this.files, pathname);
  }

  async close(): Promise<void> {
    const started = await this.started?.catch(() => undefined);
    if (started) await new Promise((resolve) => started.server.close(resolve));
  }

  private start(): Promise<{ server: http.Server; origin: string }> {
    this.started ??= new Promise((resolve, reject) => {
      const server = http.createServer((request, response) => {
        const file = Object.hasOwn(this.files, request.url ?? '') ? this.files[request.url!] : undefined;
        if (!file || request.method !== 'GET') {
          response.writeHead(404).end();
          return;
        }
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
        fs.createReadStream(file).on('error', () => response.destroy()).pipe(response);
      });
      server.once('error', reject);
      // It never keeps the service running.
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      });
    });
    return this.started;
  }
}
