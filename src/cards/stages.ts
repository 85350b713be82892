// The stages of the pipeline that createCards() (index.ts) loads on first use: together with their
// dependencies (image tools, storing, covers) they are most of the code a start would otherwise load
// before the browser is even launched. start() imports them while Chromium starts.
export { generateRequest, renderRequest } from './pipeline.js';
export { previewRequest } from './preview.js';
export { generateCover, renderCover } from './cover/cover.js';
export { ThemeThumbnails } from './thumbnails.js';
