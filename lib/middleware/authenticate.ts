/** authenticate(): finds the caller by `x-api-key` or `Authorization: Bearer`. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestHandler } from 'express';
import { gatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import { callStore, DEFAULT_STORE_TIMEOUT_MS } from '../stores/call';
import { hashKey } from '../stores/hash';
import type { KeyStore } from '../stores/types';
import type { Caller } from '../types';
import { checkTimeout } from '../foundation/timeout';

/** Options of authenticate(). */
export interface AuthenticateOptions {
  /** Where keys are looked up (by SHA-256 digest). Required. */
  store: KeyStore;
  /** Longest wait for the key store, in ms; then 500 `api_error`. Default: 5000. */
  timeoutMs?: number;
  /** The clock a key's end (`expiresAt`: a run key's, a rotated key's) is checked against, epoch ms. Default: Date.now. */
  clock?: () => number;
}

const MAX_KEY_LENGTH = 512;

/** Which header carried the key: the version-header rule depends on it. */
export type AuthScheme = 'x-api-key' | 'bearer';

function presentedKey(apiKey: string | string[] | undefined, authorization: string | undefined): { key: string; scheme: AuthScheme } {
  const fail = (message: string): never => { throw new GatewayError('authentication_error', message); };
  if (Array.isArray(apiKey)) fail('x-api-key: send one key.');
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (!match) fail('authorization: expected "Bearer <key>".');
    bearer = match?.[1];
  }
  const header = typeof apiKey === 'string' ? apiKey.trim() : undefined;
  if (header !== undefined && bearer !== undefined && header !== bearer) fail('x-api-key and authorization carry different keys.');
  const key = header ?? bearer;
  if (!key) return fail('x-api-key header or Authorization: Bearer is required.');
  const scheme: AuthScheme = header !== undefined ? 'x-api-key' : 'bearer';
  if (key.length > MAX_KEY_LENGTH) fail(INVALID[scheme]);
  return { key, scheme };
}

/** A refused key, in the words of the header that carried it. */
const INVALID: Readonly<Record<AuthScheme, string>> = { 'x-api-key': 'invalid x-api-key', bearer: 'authorization: invalid bearer key' };

/**
 * Missing, malformed, unknown, disabled or expired key: 401 `authentication_error` (an expired
 * one says when it ended). The key itself is never echoed; only its digest reaches the store.
 */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  const store = options?.store;
  if (!store || typeof store.findCaller !== 'function') {
    throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', 'authenticate: option "store" must implement findCaller(keyHash) (e.g. new MemoryStore()).');
  }
  const timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS, 'authenticate: option "timeoutMs"');
  const clock = options.clock ?? Date.now;
  if (typeof clock !== 'function') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'authenticate: option "clock" must be a function returning epoch milliseconds.');
  const unavailable = (err: unknown): GatewayError =>
    new GatewayError('api_error', 'The key store is unavailable; retry later.', { detail: `key store: ${String(err)}` });
  return function authenticateMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    let presented: { key: string; scheme: AuthScheme };
    try {
      presented = presentedKey(req.headers['x-api-key'], req.headers.authorization);
    } catch (err) {
      next(err);
      return;
    }
    const admit = (caller: Caller | undefined | null): void => {
      if (!caller || caller.disabled) {
        next(new GatewayError('authentication_error', INVALID[presented.scheme]));
        return;
      }
      // Checked on every request: a store may cache the lookup, never past the key's end.
      if (caller.expiresAt !== undefined && caller.expiresAt <= clock()) {
        next(new GatewayError('authentication_error', `${INVALID[presented.scheme]}: the key expired at ${new Date(caller.expiresAt).toISOString()}`));
        return;
      }
      ctx.caller = caller;
      ctx.authScheme = presented.scheme;
      next();
    };
    callStore(() => store.findCaller(hashKey(presented.key)), timeoutMs, 'key lookup', admit, (err) => next(unavailable(err)));
  };
}
