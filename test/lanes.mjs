// Which lane each test file runs in (scripts/run-tests.mjs). A file not named here runs in a
// process of its own, two such processes at a time.

/**
 * Groups of files that each run in one process and share one warm service with the default
 * settings (test/helpers/one-process.ts), instead of each starting its own. A file belongs to a
 * group when it starts only services with the default settings (or also a few of their own) and
 * does not depend on a fresh service: it reads no counter, log or budget that another file's
 * requests would have moved.
 */
export const sharedServiceGroups = [
  [
    'test/api-reference-page.test.ts',
    'test/blank-markdown.test.ts',
    'test/font-scale.test.ts',
    'test/generate-api.test.ts',
    'test/long-image.test.ts',
    'test/mcp.test.ts',
    'test/md2card-clients.test.ts',
    'test/mdx.test.ts',
    'test/one-pipeline.test.ts',
    'test/openapi.test.ts',
    'test/over-hidden.test.ts',
    'test/rtl-markers.test.ts',
    'test/split-auto.test.ts',
    'test/split-hr.test.ts',
    'test/tables.test.ts',
    'test/themes-b.test.ts',
    'test/themes-contrast.test.ts',
    'test/themes.test.ts',
    'test/typescript-client.test.ts',
    'test/web-creator.test.ts',
    'test/wechat-background.test.ts',
  ],
  // A second group with a service of its own: the slowest files that used to start their own
  // service. Two groups keep both processes of the lane busy, and a page-state bug that only a
  // long-lived service shows (a page's fonts after other documents) gets two chances to appear.
  // fuzz-generate asks only for answers in the API's shapes, of whatever service (2,000 requests,
  // most refused by validation): it needs no service of its own.
  ['test/card-sizes.test.ts', 'test/corpus.test.ts', 'test/cover-api.test.ts', 'test/fonts-scripts.test.ts', 'test/fuzz-generate.test.ts'],
];

/**
 * Files that measure time, watch processes or load the machine: they run one at a time, at the
 * normal priority, while every other file runs at the idle priority (SCHED_IDLE, in sessions of
 * the lowest weight: scripts/run-tests.mjs), and so only in the CPU they leave idle: the machine
 * is theirs as if they ran alone. hostile-render's bounds on other clients' previews hold as they
 * did alone; with the other files at SCHED_IDLE in sessions of normal weight, they broke. ops-keys
 * is not among them: it measures no time, only that a changed key file is read again within 5 s,
 * which it did beside the CPU-heavy card-sizes; and it keeps one core busy all along (12 s of CPU
 * in 12 s), so running it alone only added its time to the run's.
 */
export const runAlone = [
  'test/cluster.test.ts',
  'test/hostile-render.test.ts',
  'test/hostile.test.ts',
  'test/logs.test.ts',
  'test/ops-admission.test.ts',
  'test/ops-browser.test.ts',
  'test/ops-process.test.ts',
];

/**
 * Files of the idle-priority lane that bound waits of a few seconds or less on the wall clock
 * (a key file read again within 5 s, a budget refilled over time, previews charged by the time
 * they took, page expectations, sleeps before checking what a service did meanwhile): they start only once the files of `runAlone`
 * are done, when nothing at a higher priority can hold them up. Every other file may start while
 * those run, in the CPU they leave idle.
 */
export const afterAlone = [
  'test/creator.test.ts',
  'test/http-routes.test.ts',
  'test/markdown-lanes.test.ts',
  'test/ops-keys.test.ts',
  'test/page-pool.test.ts',
  'test/preview-budget.test.ts',
  'test/render-cache.test.ts',
  'test/render-limits.test.ts',
  'test/request-validators.test.ts',
  'test/svg-raster.test.ts',
  'test/web-page.test.ts',
  'test/web-routes.test.ts',
];

/** `npm run test:unit`: the files that need no Chromium, no build and no service (seconds in all). */
export const unitFiles = [
  'test/build-if-stale.test.ts',
  'test/cjk-phrases.test.ts',
  'test/client-turns.test.ts',
  'test/code-fingerprint.test.ts',
  'test/code-wrap.test.ts',
  'test/deployment.test.ts',
  'test/devtools-pipe.test.ts',
  'test/diagram-alt.test.ts',
  'test/diagram-theme-variables.test.ts',
  'test/docs.test.ts',
  'test/font-faces-build.test.ts',
  'test/front-matter-fuzz.test.ts',
  'test/heap-growth.test.ts',
  'test/json-in-pieces.test.ts',
  'test/long-word-breaks.test.ts',
  'test/numeric-strings.test.ts',
  'test/page-fonts.test.ts',
  'test/s3-config.test.ts',
  'test/watermark.test.ts',
  'test/worker-warmth.test.ts',
  'test/http-routes.test.ts',
  'test/markdown-lanes.test.ts',
  'test/page-pool.test.ts',
  'test/preview-budget.test.ts',
  'test/regex-translations.test.ts',
  'test/render-limits.test.ts',
  'test/s3-store-all.test.ts',
  'test/svg-raster.test.ts',
].sort();

/**
 * The slowest files of the idle-priority lane after the shared processes, slowest first: they
 * start first, so the lane ends with short files and neither process waits long for the other at
 * the end.
 */
export const startFirst = [
  'test/cli.test.ts',
  'test/diagrams.test.ts',
  'test/creator.test.ts',
  'test/web-page.test.ts',
  'test/web-routes.test.ts',
];
