// A real HTTP server on 127.0.0.1 that accepts every request and never answers it: what a stuck
// image host looks like to the service.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HangingServer {
  origin: string;
  hostPort: string;
  close(): Promise<void>;
}

export async function startHangingServer(): Promise<HangingServer> {
  const server = http.createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
