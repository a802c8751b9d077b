/** The rules both response stores share: what a record must hold, its JSON and size, item ids, and the input-item page window. */
import { GatewayConfigError } from '../foundation/config-errors';
import { GatewayError } from '../foundation/errors';
import { randomHex } from '../foundation/random-id';
import type { InputItemsQuery, NewResponse, PutResult, ResponseNote } from './responses';

/** A response id the stores accept: `resp_` and up to 250 URL-safe characters. */
const RESPONSE_ID = /^resp_[A-Za-z0-9_.=-]{1,250}$/;
/** An item id kept as the client sent it: printable ASCII without spaces, at most 256 characters; any other is replaced. */
const ITEM_ID = /^[\x21-\x7e]{1,256}$/;
const MAX_POSITION = 2_147_483_647;

/** Whether `id` can name a stored response: any other is simply not found (never sent to a database). */
export const isResponseId = (id: unknown): id is string => typeof id === 'string' && RESPONSE_ID.test(id);

/** The id prefix the API gives an item of each type (`item` for the others). */
const PREFIX: Readonly<Record<string, string>> = {
  message: 'msg', function_call: 'fc', function_call_output: 'fco', custom_tool_call: 'ctc', custom_tool_call_output: 'ctco', reasoning: 'rs',
};

const fail = (field: string, what: string): never => { throw new GatewayConfigError('ERR_MGW_INVALID_ARGUMENT', `ResponseStore.putResponse: ${field} ${what}`); };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, field: string): void => { if (typeof v !== 'string' || v.length === 0 || v.includes('\u0000')) fail(field, 'must be a non-empty string without NUL'); };
const textOrNull = (v: unknown, field: string): void => { if (v !== null) text(v, field); };

/** Checks a record and the size bound; throws a TypeError naming the field (a malformed record is a bug in the caller). */
export function checkRecord(r: NewResponse, limits: { maxBytes: number }): void {
  if (!isObject(r)) fail('record', 'must be an object');
  if (!isResponseId(r.id)) fail('id', `must match ${RESPONSE_ID}`);
  for (const field of ['callerId', 'requestId', 'model', 'upstream'] as const) text(r[field], field);
  textOrNull(r.upstreamResponseId, 'upstreamResponseId');
  textOrNull(r.previousResponseId, 'previousResponseId');
  if (!isObject(r.response) || r.response.id !== r.id) fail('response', 'must be the response object, with the same id');
  if (!Array.isArray(r.inputItems) || !r.inputItems.every(isObject)) fail('inputItems', 'must be an array of objects');
  if (r.instructions !== null && typeof r.instructions !== 'string' && !Array.isArray(r.instructions)) fail('instructions', 'must be a string, an array or null');
  if (!Array.isArray(r.tools)) fail('tools', 'must be an array');
  if (r.usage !== null && !isObject(r.usage)) fail('usage', 'must be the usage or null');
  if (!Number.isSafeInteger(r.createdAt) || !Number.isSafeInteger(r.expiresAt) || r.expiresAt <= r.createdAt) fail('expiresAt', 'must be epoch ms after createdAt');
  if (!Number.isSafeInteger(limits?.maxBytes) || limits.maxBytes < 1) fail('limits.maxBytes', 'must be a positive integer');
}

/** A record as the stores keep it: JSON texts, the item ids, and its size (UTF-8 bytes of all of its JSON). */
export interface EncodedResponse {
  response: string;
  instructions: string;
  tools: string;
  /** Each input item's JSON, in order, each with its id. */
  items: string[];
  itemIds: string[];
  bytes: number;
}

/**
 * Gives every input item an id unique in its response: the client's own when it is one (printable,
 * not seen before), else a new one with its type's prefix (`msg_…`, `fc_…`), so item cursors name
 * one place.
 */
export function encodeRecord(r: NewResponse): EncodedResponse {
  const seen = new Set<string>();
  const items: string[] = [];
  for (const item of r.inputItems) {
    const own = item.id;
    if (typeof own === 'string' && ITEM_ID.test(own) && !seen.has(own)) {
      seen.add(own);
      items.push(JSON.stringify(item));
      continue;
    }
    const type = typeof item.type === 'string' ? item.type : typeof item.role === 'string' ? 'message' : '';
    const id = `${PREFIX[type] ?? 'item'}_${randomHex()}`;
    seen.add(id);
    items.push(JSON.stringify(own === undefined ? { id, ...item } : { ...item, id }));
  }
  const response = JSON.stringify(r.response);
  const instructions = JSON.stringify(r.instructions);
  const tools = JSON.stringify(r.tools);
  const bytes = [response, instructions, tools, ...items].reduce((sum, t) => sum + Buffer.byteLength(t), 0);
  return { response, instructions, tools, items, itemIds: [...seen], bytes };
}

/** The note of a response given to putResponse. */
export const noteOf = (r: NewResponse, result: PutResult): ResponseNote => ({
  requestId: r.requestId, responseId: r.id, callerId: r.callerId, stored: result.stored,
  reason: result.stored ? null : result.reason, previousResponseId: r.previousResponseId,
});

const bad = (field: string, what: string): GatewayError => new GatewayError('invalid_request_error', `${field}: ${what}`);

/** An input-item query checked, defaults applied (limit 20, order desc); a bad field is a 400 naming it. */
export function checkItemsQuery(q: InputItemsQuery = {}): Required<Pick<InputItemsQuery, 'limit' | 'order'>> & Pick<InputItemsQuery, 'after' | 'before'> {
  const limit = q.limit ?? 20;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100) throw bad('limit', 'must be an integer from 1 to 100');
  const order = q.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw bad('order', 'must be "asc" or "desc"');
  for (const field of ['after', 'before'] as const) {
    const v = q[field];
    if (v !== undefined && (typeof v !== 'string' || !ITEM_ID.test(v))) throw bad(field, 'must be the id of an input item');
  }
  return { limit, order, ...(q.after !== undefined ? { after: q.after } : {}), ...(q.before !== undefined ? { before: q.before } : {}) };
}

/** A cursor that names no item of the response: a 400 naming it. */
export const unknownCursor = (field: 'after' | 'before', value: string, id: string): GatewayError => bad(field, `"${value}" is not an input item of ${id}`);

/**
 * Which positions a page reads: those strictly between `lo` and `hi`, scanned `ascending` or not,
 * `limit + 1` of them (one more tells has_more), then `reverse`d. `after` moves forward in the
 * order asked; `before` alone reads the items just before its cursor (the page before a page),
 * still shown in the order asked, has_more then telling whether items remain further back.
 */
export function windowOf(order: 'asc' | 'desc', after: number | undefined, before: number | undefined): { lo: number; hi: number; ascending: boolean; reverse: boolean } {
  const [lo, hi] = order === 'asc' ? [after ?? -1, before ?? MAX_POSITION] : [before ?? -1, after ?? MAX_POSITION];
  const fromEnd = before !== undefined && after === undefined;
  return { lo, hi, ascending: (order === 'asc') !== fromEnd, reverse: fromEnd };
}
