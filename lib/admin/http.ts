/** What every admin route shares: times as operators type them, and 404s naming what was not found. */
import { GatewayError } from '../foundation/errors';
import { utcDay } from '../stores/reads';
import { ISO_8601_PATTERN } from './schemas';

const bad = (field: string, what: string): GatewayError => new GatewayError('invalid_request_error', `${field}: ${what}`);

/** A date, or a date-time with its offset. */
const ISO_8601 = new RegExp(ISO_8601_PATTERN);

/**
 * A time an operator gave, as epoch milliseconds: epoch milliseconds themselves (a number or its
 * digits) or ISO 8601 (`2026-11-24T10:00:00Z`; a date alone is its UTC midnight). Anything else is
 * a 400 naming the field and both forms.
 */
export function timeOf(field: string, value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,16}$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  const date = typeof value === 'string' ? ISO_8601.exec(value) : null;
  const at = date ? Date.parse(value as string) : NaN;
  // Date.parse rolls 2026-02-30 over to March: the calendar date must be one.
  if (date && !Number.isNaN(at) && utcDay(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]))) === `${date[1]}-${date[2]}-${date[3]}`) return at;
  throw bad(field, 'must be epoch milliseconds (1795514400000) or an ISO 8601 date-time with its offset (2026-11-24T10:00:00Z) or date (2026-11-24, UTC)');
}

/** A 404 naming what was not found. */
export const notFoundError = (what: string): GatewayError => new GatewayError('not_found_error', what);
