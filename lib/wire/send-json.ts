/** Writes a JSON answer directly: no ETag hashing or content negotiation on the hot path. */
import type { Response } from 'express';

/** Sends `body` as `application/json` with the given status (default: the status already set). */
export function sendJson(res: Response, body: unknown, status?: number): void {
  sendJsonText(res, JSON.stringify(body), status);
}

/** Sends JSON already serialised (e.g. a response whose echoed fields were serialised once) as sendJson() would. */
export function sendJsonText(res: Response, json: string, status?: number): void {
  if (res.destroyed || res.writableEnded) return;
  if (status !== undefined) res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(json); // Node sets content-length from the single chunk
}
