// How far the service's V8 heaps may grow between two full garbage collections. Every capture
// reaches the main thread as base64 text in a DevTools message (about 1.5 MB a card, counting its
// copies), which V8 keeps in its large-object space until the next full collection; by default
// V8 lets a heap grow up to four times what was live after the last one before it collects again,
// so the service's memory rose and fell by 100 MB and more between collections under a steady
// stream of cards. At a quarter, it stays flat (docs/performance.md#memory). The flag is read at
// every collection, in every thread: set once the service is ready (http/run-server.ts), it holds
// the main thread and the Markdown workers already running alike (test/heap-growth.test.ts). It
// matters on Node 20 and 22. On Node 24 it changes nothing that was measured: the test's process
// peaks at 166 MB there with or without it (against 220-290 MB without it on Node 20), with one or
// two full collections in the whole run.
import v8 from 'node:v8';

const heapGrowingPercent = 25;

export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
}
