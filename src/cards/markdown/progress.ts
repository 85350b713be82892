// Where a document is in the Markdown pipeline, reported as it goes. The worker pool forwards each
// stage to the main thread, so when a document runs out of CPU time its answer can name the part
// that used it up ("highlighting the ts code block at line 3") instead of just "too slow".
import type { VFile } from 'vfile';

export type ProgressListener = (stage: string) => void;

declare module 'vfile' {
  interface DataMap {
    progress: ProgressListener;
  }
}

export function reportProgress(file: VFile, stage: string): void {
  file.data.progress?.(stage);
}
