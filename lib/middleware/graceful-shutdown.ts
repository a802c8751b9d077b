/** gracefulShutdown(): tracks requests in flight so the router can stop accepting, drain and end them. */
import { sendJson } from '../send-json';
import type { RequestHandler, Response } from 'express';
import { gatewayContext, onResponseClose } from '../context';
import { GatewayError } from '../errors';
import { frame } from '../streaming/sse-writer';

/** The middleware plus `drain()`. */
export type ShutdownGate = RequestHandler & {
  /**
   * Stops accepting (new requests get 529 `overloaded_error`, which the SDKs retry), waits up
   * to `graceMs` for requests in flight, then ends the rest: a stream with an `error` event,
   * a pending JSON answer with 529. Resolves when every response is closed.
   */
  drain(graceMs: number): Promise<void>;
};

const SHUTTING_DOWN = 'The gateway is shutting down; retry.';

function end(res: Response): void {
  if (res.writableEnded || res.destroyed) return;
  const ctx = res.locals.gateway;
  if (ctx) ctx.errorCode = 'overloaded_error';
  if (res.headersSent) {
    res.end(frame({ type: 'error', error: { type: 'overloaded_error', message: SHUTTING_DOWN } }));
    return;
  }
  res.setHeader('x-should-retry', 'true');
  sendJson(res, { type: 'error', error: { type: 'overloaded_error', message: SHUTTING_DOWN }, request_id: res.locals.gateway?.requestId }, 529);
}

/** Creates the gate; mount it after requestId() and billingHook(). */
export function gracefulShutdown(): ShutdownGate {
  const open = new Set<Response>();
  let closing = false;
  let idle: (() => void) | undefined;
  const gate = function gracefulShutdownMiddleware(_req, res, next) {
    if (open.has(res)) {
      next(); // met twice on one request (a router and its route): counted once
      return;
    }
    if (closing) {
      next(new GatewayError('overloaded_error', SHUTTING_DOWN));
      return;
    }
    open.add(res);
    onResponseClose(gatewayContext(res), () => {
      open.delete(res);
      if (open.size === 0) idle?.();
    });
    next();
  } as ShutdownGate;
  gate.drain = async (graceMs) => {
    closing = true;
    if (open.size > 0) {
      const allClosed = new Promise<void>((resolve) => { idle = resolve; });
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); });
      await Promise.race([allClosed, grace]);
      clearTimeout(timer);
      for (const res of open) end(res);
      if (open.size > 0) await allClosed;
    }
  };
  return gate;
}
