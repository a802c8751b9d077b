/** compatVersion(): checks the `compat-version` / `anthropic-version` header of Messages requests. */
import { GATEWAY_DEFAULTS } from '../foundation/defaults';
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestHandler } from 'express';
import { gatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';

/** Version dates the official SDKs send today. */
export const DEFAULT_VERSIONS: readonly string[] = GATEWAY_DEFAULTS.versions;

/** Options of compatVersion(). */
export interface CompatVersionOptions {
  /** Accepted version dates (YYYY-MM-DD). Default: DEFAULT_VERSIONS. */
  versions?: readonly string[];
  /** Require the header even with `Authorization: Bearer`. Default: false (required with `x-api-key` only). */
  alwaysRequired?: boolean;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Accepts `compat-version` or the vendor's `anthropic-version` (when both are sent they must
 * agree). Required with the `x-api-key` form; a malformed or unknown value is a 400 that
 * names it and lists the supported ones. The version never changes what V1 accepts.
 */
export function compatVersion(options: CompatVersionOptions = {}): RequestHandler {
  const versions = Object.freeze([...(options.versions ?? DEFAULT_VERSIONS)]);
  if (versions.length === 0 || versions.some((v) => typeof v !== 'string' || !DATE.test(v))) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'compatVersion: option "versions" must be a non-empty list of dates like "2023-06-01".');
  }
  const accepted = new Set(versions);
  const list = versions.join(', ');
  return function compatVersionMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const compat = req.headers['compat-version'];
    const vendor = req.headers['anthropic-version'];
    const value = typeof compat === 'string' ? compat : typeof vendor === 'string' ? vendor : undefined;
    if (typeof compat === 'string' && typeof vendor === 'string' && compat !== vendor) {
      next(new GatewayError('invalid_request_error', `compat-version: "${compat}" and anthropic-version: "${vendor}" disagree; send one.`));
      return;
    }
    if (value === undefined) {
      if (Array.isArray(compat) || Array.isArray(vendor) || options.alwaysRequired || ctx.authScheme !== 'bearer') {
        next(new GatewayError('invalid_request_error', `anthropic-version: header is required (or compat-version); supported: ${list}`));
        return;
      }
      next();
      return;
    }
    if (!accepted.has(value.trim())) {
      const shown = JSON.stringify(value.slice(0, 64));
      next(new GatewayError('invalid_request_error', `anthropic-version: ${shown} is not a valid version; supported: ${list}`));
      return;
    }
    next();
  };
}
