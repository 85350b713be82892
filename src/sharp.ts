// sharp, loaded with `require`: its CommonJS build loads in half the time of what `import` loads
// (78 against 168 ms in a cold process, medians of three), time spent at every start of the
// service's main thread before anything else could run, and by every process that draws an SVG
// (docs/performance.md#start-up).
import { createRequire } from 'node:module';

export const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
