// A JSON POST as the test suites send it: the answer's status, parsed body (or the raw text when it
// is not JSON), headers, and how long it took.
export async function postJson(baseUrl: string, route: string, body: unknown, headers: Record<string, string> = {}) {
  const started = performance.now();
  const send = () =>
    fetch(`${baseUrl}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  // fetch may reuse a kept-alive connection just as the service closes it for idleness (after
  // KEEP_ALIVE_TIMEOUT_MS, when the test's own event loop was busy, e.g. decoding a large PNG): the
  // request never reached the service, so it is sent once more, as HTTP clients do for this race.
  const response = await send().catch((error) => {
    if (error?.cause?.code === 'ECONNRESET' || error?.cause?.code === 'UND_ERR_SOCKET') return send();
    throw error;
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = { unparsed: text };
  }
  return { status: response.status, json, headers: response.headers, ms: performance.now() - started };
}
