// Prometheus metrics of one service instance (prom-client), served at GET /metrics.
// Each instance has its own registry, so several services in one process (tests) never mix counts.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CardsObserver } from '../cards/index.js';
import type { RestartReason } from '../cards/render/renderer.js';

/** What the gauges read at scrape time. */
export interface PoolState {
  readonly queueLength: number;
  readonly activeRenders: number;
}

export class Metrics implements CardsObserver {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'cardwright_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly renderSeconds = new Histogram({
    name: 'cardwright_render_duration_seconds',
    help: 'Time a request held a browser page: layout and capture of all its cards.',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly queueWaitSeconds = new Histogram({
    name: 'cardwright_queue_wait_seconds',
    help: 'Time a request waited for a free browser page.',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly restarts = new Counter({
    name: 'cardwright_browser_restarts_total',
    help: 'Browser replacements, by reason: planned (after BROWSER_RESTART_AFTER renders), crash, unresponsive.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly discardedPages = new Counter({
    name: 'cardwright_pages_discarded_total',
    help: 'Browser pages closed because their render failed or was cancelled by its deadline.',
    registers: [this.registry],
  });
  private readonly retriedRenders = new Counter({
    name: 'cardwright_render_retries_total',
    help: 'Renders tried a second time on a fresh page after a browser or tab crash, or a renderer or browser found frozen.',
    registers: [this.registry],
  });
  private readonly imagesStored = new Counter({
    name: 'cardwright_images_stored_total',
    help: 'Images stored and returned to clients.',
    registers: [this.registry],
  });
  private readonly bytesStored = new Counter({
    name: 'cardwright_stored_bytes_total',
    help: 'Bytes of the images stored and returned to clients.',
    registers: [this.registry],
  });

  private readonly storageFailures = new Counter({
    name: 'cardwright_storage_failures_total',
    help: 'Requests that failed because the store refused or did not answer (502 storage_failed).',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'cardwright_' });
  }

  /** Registers the gauges that are read from the render pool at scrape time. */
  watchPool(pool: PoolState): void {
    new Gauge({
      name: 'cardwright_queue_length',
      help: 'Requests waiting for a free browser page.',
      registers: [this.registry],
      collect() {
        this.set(pool.queueLength);
      },
    });
    new Gauge({
      name: 'cardwright_active_renders',
      help: 'Renders running now.',
      registers: [this.registry],
      collect() {
        this.set(pool.activeRenders);
      },
    });
    // Restart reasons appear at 0 from the start, so rate() works before the first restart.
    for (const reason of ['planned', 'crash', 'unresponsive'] as const) this.restarts.inc({ reason }, 0);
  }

  /** Reports whether the shared state (Redis) is reachable, as 1 or 0; only set with REDIS_URL. */
  watchSharedState(state: { readonly ready: boolean }): void {
    new Gauge({
      name: 'cardwright_shared_state_up',
      help: 'Whether Redis (REDIS_URL) is reachable: 0 means each replica counts limits and caches on its own.',
      registers: [this.registry],
      collect() {
        this.set(state.ready ? 1 : 0);
      },
    });
  }

  storageFailed(): void {
    this.storageFailures.inc();
  }

  request(route: string, method: string, status: number): void {
    this.requests.inc({ route, method, status: String(status) });
  }

  stored(images: ReadonlyArray<{ bytes: number }>): void {
    this.imagesStored.inc(images.length);
    this.bytesStored.inc(images.reduce((sum, image) => sum + image.bytes, 0));
  }

  queueWait(seconds: number): void {
    this.queueWaitSeconds.observe(seconds);
  }

  render(seconds: number, outcome: 'ok' | 'failed' | 'cancelled'): void {
    this.renderSeconds.observe({ outcome }, seconds);
  }

  browserRestarted(reason: RestartReason): void {
    this.restarts.inc({ reason });
  }

  pageDiscarded(): void {
    this.discardedPages.inc();
  }

  renderRetried(): void {
    this.retriedRenders.inc();
  }
}
