// The load both load benchmarks send (bench/load.ts against one service, bench/cluster.ts through
// a load balancer): autocannon POSTing /api/generate for a fixed time, a different small card each
// request, so the render cache can never answer and every request is a real render and store.
import autocannon from 'autocannon';

export interface CardLoad {
  /** The service (or load balancer) base URL. */
  baseUrl: string;
  apiKey: string;
  connections: number;
  seconds: number;
  /** Put in every card's title, so runs against different set-ups never send the same card. */
  label?: string;
}

export function sendCardLoad({ baseUrl, apiKey, connections, seconds, label = '' }: CardLoad): Promise<autocannon.Result> {
  let counter = 0;
  return autocannon({
    url: `${baseUrl}/api/generate`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ markdown: `# Card ${label}${++counter}\n\nA short paragraph, 中文 and emoji 🚀, on card number ${counter}.` }),
        }),
      },
    ],
  });
}
