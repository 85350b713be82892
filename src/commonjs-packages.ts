// Packages that the service's process loads at start, loaded with `require`: their CommonJS builds
// load in about half the time of what `import` loads (sharp 78 against 168 ms, piscina 23 against
// 45 ms: a cold process each, medians of three), time the main thread spent at every start before
// anything else could run (docs/performance.md#start-up).
import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

export const sharp = requireHere('sharp') as typeof import('sharp').default;

export const { Piscina } = requireHere('piscina') as typeof import('piscina');
export type Piscina<T, R> = import('piscina').Piscina<T, R>;
