/** RequestLogSink: where a store's request log goes, so an operator can send it elsewhere without touching money. */
import type { RequestLogEntry } from './types';

/**
 * Receives the request log in batches (the entries appended while the previous batch was being
 * written, in order). It never sees or moves money: each entry is written after its settlement
 * has been stored, and a sink that fails or is slow delays only the log (its writes are retried
 * by the router, then set aside). A batch may be written again after a failure, and its entries
 * one by one, so a sink must be idempotent by `requestId`. Pass it as PostgresStore's
 * `requestLog` option; the admin API's log reads then show only what the store itself keeps.
 */
export interface RequestLogSink {
  write(entries: readonly RequestLogEntry[]): Promise<void>;
}
