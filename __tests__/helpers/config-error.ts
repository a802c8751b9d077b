/** Matches a construction error by its ERR_MGW_* code and, when given, its wording: tests assert codes, not message text alone. */
import type { ConfigErrorCode } from '../../lib';

/** An asymmetric matcher for `toThrow(…)` / `rejects.toThrow(…)`: a GatewayConfigError of `code` whose reason holds `wording`. */
export function refused(code: ConfigErrorCode, wording?: string | RegExp) { // jest types an asymmetric matcher as any
  const reason = wording === undefined ? {} : { reason: typeof wording === 'string' ? expect.stringContaining(wording) : expect.stringMatching(wording) };
  return expect.objectContaining({ name: 'GatewayConfigError', code, ...reason });
}
