// Warnings of a request (an unknown themeMode drawn in the default mode, options weChatMode does
// not apply) go into the answer's `warnings` and into the X-Cardwright-Warnings header, one value
// per warning, so a client that only looks at headers or at the status still learns of them.
import type { FastifyReply } from 'fastify';

export const warningsHeader = 'X-Cardwright-Warnings';

export function sendWarningsHeader(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  // Header values are Latin-1 at best: anything outside printable ASCII (a Chinese mode name a
  // client sent) is written as a \uXXXX escape, which JSON.parse('"…"') turns back into text.
  reply.header(warningsHeader, warnings.map((warning) => warning.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)));
}
