// The start-up check of the store. It never stops the service: a replica that starts during a
// storage outage still answers /health, reports not-ready on /ready, answers generate requests
// with 502 storage_failed, and recovers by itself once the store accepts writes again. Stopping
// instead would turn a storage blip into a crash loop of every replica.
import type { Logger } from '../logger.js';
import { describeStorageFailure, StorageError } from './storage-error.js';
import type { Storage } from './storage.js';

export async function checkStorageAtStartup(storage: Storage, log: Logger): Promise<boolean> {
  try {
    await storage.health();
    log.info('storage is reachable and writable');
    return true;
  } catch (error) {
    const reason = error instanceof StorageError ? error.message : describeStorageFailure(error);
    log.error(
      { err: error },
      `STORAGE IS NOT WRITABLE: ${reason}. The service starts anyway: /ready answers 503 and image requests fail with 502 storage_failed until the store accepts writes again.`,
    );
    return false;
  }
}
