// Small statistics for benchmark samples.

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const median = (samples: number[]) => percentile(samples, 50);

/** Times `count` sequential runs of `task`, in ms. */
export async function timeSequential(count: number, task: (index: number) => Promise<void>): Promise<number[]> {
  const timings: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await task(i);
    timings.push(performance.now() - started);
  }
  return timings;
}
