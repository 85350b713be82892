// A JSON POST as the test suites send it: the answer's status, parsed body (or the raw text when it
// is not JSON), headers, and how long it took.
export async function postJson(baseUrl: string, route: string, body: unknown, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
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
