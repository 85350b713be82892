// A second client that keeps asking GET /health on its own keep-alive connection while a test
// attacks the service, and records how long every answer took: the proof that the event loop
// stayed free for everyone else.
import http from 'node:http';

export interface HealthReport {
  count: number;
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

export function watchHealth(baseUrl: string, everyMs = 20): { stop(): Promise<HealthReport> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let failures = 0;
  let running = true;
  const ask = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const request = http.get(`${baseUrl}/health`, { agent, timeout: 5000 }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode === 200) times.push(performance.now() - started);
          else failures++;
          resolve();
        });
      });
      // Neither its sockets nor its pauses keep the process alive: a test that fails before stop()
      // must end, not leave the test file running for good.
      request.on('socket', (socket) => socket.unref());
      request.on('timeout', () => request.destroy(new Error('no answer within 5 s')));
      request.on('error', () => {
        failures++;
        resolve();
      });
    });
  const loop = (async () => {
    while (running) {
      await ask();
      await new Promise((resolve) => setTimeout(resolve, everyMs).unref());
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      const sorted = [...times].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      return { count: sorted.length, failures, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
    },
  };
}
