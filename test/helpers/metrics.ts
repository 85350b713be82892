// Reads one sample from a running service's GET /metrics (Prometheus text format).
export async function metric(baseUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return sampleOf(text, name, labels);
}

/** The value of the sample `name{labels…}` (labels may be a subset), or 0 when there is none. */
export function sampleOf(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const given = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => given.includes(`${key}="${value}"`))) return Number(match[3]);
  }
  return 0;
}
