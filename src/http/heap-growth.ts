// How far the service's V8 heaps may grow between two full garbage collections. Every capture
// reaches the main thread as base64 text in a DevTools message (about 1.5 MB a card, counting its
// copies), which V8 keeps in its large-object space until the next full collection; by default
// V8 lets a heap grow up to four times what was live after the last one before it collects again,
// so the service's memory rose and fell by 100 MB and more between collections under a steady
// stream of cards. At a quarter, it stays flat (docs/performance.md#memory). The flag is read at
// every collection, so setting it once the process runs applies to the main thread and to the
// Markdown workers started after it. Node 20 and 22 follow it; Node 24's V8 leaves its heaps as
// they were with or without it (its own default kept the same test's peak at 166 MB instead of
// Node 20's 220-290), so there it changes nothing.
import v8 from 'node:v8';

const heapGrowingPercent = 25;

export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
}
