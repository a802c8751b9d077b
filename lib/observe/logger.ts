/** Structured logs through a pino-compatible logger: one line per finished request, failures with their cause. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestLogEntry } from '../stores/types';
import type { GatewayObserver } from './observer';

/** The part of a pino (or pino-compatible) logger the gateway uses: `(fields, message)`. */
export interface LoggerLike {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** The fields of a request's line: what the request log keeps, minus nothing secret (keys never reach an entry). */
function fieldsOf(e: RequestLogEntry): Record<string, unknown> {
  return {
    requestId: e.requestId, callerId: e.callerId, endpoint: e.endpoint, model: e.model, stream: e.stream, status: e.status,
    errorCode: e.errorCode, usage: e.usage, cost: e.cost, charge: e.charge, billingStatus: e.billingStatus,
    durationMs: e.durationMs, ttfbMs: e.ttfbMs, upstream: e.upstream, attempts: e.attempts.length, user: e.user,
    keyId: e.keyId, sessionId: e.sessionId, sessionSource: e.sessionSource, agentId: e.agentId,
  };
}

const causeOf = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/**
 * An observer that writes to `logger`: `info` for a request that ended well, `warn` with the
 * private detail (upstream status and text, the upstream key redacted) for one that failed,
 * `warn` for a store call that failed and for a request admitted without its limits (their
 * backend failed, limits.failOpen), `error` for a write set aside.
 */
export function loggingObserver(logger: LoggerLike): GatewayObserver {
  for (const level of ['info', 'warn', 'error'] as const) {
    if (typeof logger?.[level] !== 'function') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `option "logger" must be a pino-compatible logger with ${level}(fields, message) (e.g. pino()).`);
  }
  return {
    requestFinished(entry) {
      // A request that ended well shows its detail too, when it has one (a clamped max_tokens, a settlement set aside).
      if (entry.errorCode === null && entry.status < 400) logger.info(entry.detail === null ? fieldsOf(entry) : { ...fieldsOf(entry), detail: entry.detail }, 'request finished');
      else logger.warn({ ...fieldsOf(entry), detail: entry.detail }, 'request failed');
    },
    storeCall(operation, ms, error) {
      if (error !== undefined) logger.warn({ operation, ms, cause: causeOf(error) }, 'store call failed');
    },
    limitsFailedOpen(limits, error) {
      logger.warn({ limits, cause: causeOf(error) }, 'limits backend unavailable: request admitted without its limits (limits.failOpen)');
    },
    writeSetAside(kind, requestId, error) {
      logger.error({ kind, requestId, cause: causeOf(error) }, 'store write set aside after repeated failures');
    },
  };
}

/** A pino-compatible logger writing one JSON line per call through `print` (stdout by default), for hosts without pino. */
export function jsonLogger(print: (line: string) => void = (line) => console.log(line)): LoggerLike {
  const line = (level: string) => (fields: object, msg: string): void => print(JSON.stringify({ level, time: Date.now(), msg, ...fields }));
  return { info: line('info'), warn: line('warn'), error: line('error') };
}
