/** Writes a JSON answer directly: no ETag hashing or content negotiation on the hot path. */
import type { Response } from 'express';

/** Sends `body` as `application/json` with the given status (default: the status already set). */
export function sendJson(res: Response, body: unknown, status?: number): void {
  if (res.destroyed || res.writableEnded) return;
  if (status !== undefined) res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body)); // Node sets content-length from the single chunk
}
