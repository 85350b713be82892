// One deadline per request, carried through every step (Markdown in its worker, image fetches,
// queue wait, render, upload) as an AbortSignal. It also fires when the client hangs up before the
// answer, so no work continues for nobody. The deadline is a plain timer held by the request
// (see src/cards/time-limit.ts for why not AbortSignal.timeout), cleared when the answer is sent.
import type { FastifyReply } from 'fastify';

export function requestDeadline(reply: FastifyReply, timeoutMs: number): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`the request did not finish within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  reply.raw.once('close', () => {
    clearTimeout(timer);
    if (!reply.raw.writableFinished) controller.abort(new DOMException('the client closed the connection', 'AbortError'));
  });
  return controller.signal;
}
