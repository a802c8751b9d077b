/** ResponseStore: stored Responses API responses (for previous_response_id and GET/DELETE /v1/responses/{id}), scoped to an account. */
import type { Usage } from '../types';
import type { Awaitable } from './types';

/** A Responses API object as the gateway answered it (`id`, `object`, `created_at`, `status`, `model`, `output`, `usage`, the echoed parameters…). */
export type ResponseObject = { id: string } & Record<string, unknown>;

/** One input item as the API lists it (`GET /v1/responses/{id}/input_items`): every item has an id, unique within its response. */
export type ResponseItem = { id: string } & Record<string, unknown>;

/** What putResponse takes: the stored record; items without an id (or repeating one) are given one. */
export interface NewResponse {
  /** `resp_…`: the one id of the response (in `response.created`, `response.completed` and here alike). */
  id: string;
  /** The account that made it: the only one that can read, chain, list or delete it. */
  callerId: string;
  /** The gateway request that made it (the request log's id). */
  requestId: string;
  /** The public model id (the catalog's). */
  model: string;
  /** The adapter name of the upstream that served it. */
  upstream: string;
  /** The upstream's own id of it, for a native Responses upstream that stored it too (chained only there); null otherwise. */
  upstreamResponseId: string | null;
  /** The response this one chained from; null for none. */
  previousResponseId: string | null;
  /** The response object, exactly as the client got it (`response.id` must equal `id`). */
  response: ResponseObject;
  /** Its input items in order, as sent after `item_reference` resolution. */
  inputItems: ReadonlyArray<Record<string, unknown>>;
  /** The resolved instructions (a string, a list of input items, or null). */
  instructions: string | readonly unknown[] | null;
  /** The resolved tools. */
  tools: readonly unknown[];
  /** The usage it was billed on, in the gateway's figures; null when none was reported. */
  usage: Usage | null;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms after which it is gone: unreadable at once, removed by the next sweep (responseExpiry()). */
  expiresAt: number;
}

/** A stored response as getResponse returns it. */
export type StoredResponse = Omit<NewResponse, 'inputItems'> & { inputItems: ResponseItem[] };

/**
 * Why a response was not stored: `too_large` (over the size bound), `conflict` (another account
 * holds that id), `not_requested` (the request said `store: false`), `disabled` (the operator's
 * option is off). The route answers `store: false` in the response object for each.
 */
export type NotStoredReason = 'too_large' | 'conflict' | 'not_requested' | 'disabled';

export type PutResult = { stored: true } | { stored: false; reason: 'too_large' | 'conflict' };

/** What the request log shows of a Responses request: its response id, whether it was stored (or why not), what it chained from. */
export interface ResponseNote {
  requestId: string;
  responseId: string;
  callerId: string;
  stored: boolean;
  reason: NotStoredReason | null;
  previousResponseId: string | null;
}

/** A page of input items, as `GET /v1/responses/{id}/input_items` answers (first_id and last_id are null on an empty page). */
export interface InputItemsPage {
  object: 'list';
  data: ResponseItem[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** Which input items: cursors are item ids; `order` desc (the default: last item first) or asc; `limit` 1 to 100 (default 20). */
export interface InputItemsQuery {
  after?: string;
  before?: string;
  limit?: number;
  order?: 'asc' | 'desc';
}

/**
 * Stored responses, each scoped to its account: a read by another account answers exactly as a
 * read of an id that never existed (undefined / false), and so does an expired one. A response is
 * readable as soon as putResponse has resolved, from every instance on the same store.
 * MemoryStore and PostgresStore keep one in `store.responses`.
 */
export interface ResponseStore {
  /**
   * Stores a response once: the same id again from the same account is a no-op (`stored: true`),
   * from another account `conflict`; a record whose JSON (response object, input items,
   * instructions, tools) is over `maxBytes` is not stored (`too_large`). Records the ResponseNote
   * of its request either way. Throws a TypeError on a malformed record (a bug in the caller).
   */
  putResponse(record: NewResponse, limits: { maxBytes: number }): Awaitable<PutResult>;
  getResponse(callerId: string, id: string): Awaitable<StoredResponse | undefined>;
  /** True when it was there (and is now gone). */
  deleteResponse(callerId: string, id: string): Awaitable<boolean>;
  /** A page of its input items; undefined when there is no such response. Throws a 400 GatewayError naming a bad query field or cursor. */
  listInputItems(callerId: string, id: string, query?: InputItemsQuery): Awaitable<InputItemsPage | undefined>;
  /** Deletes every stored response of an account (an operator's erasure); returns how many were readable. */
  deleteResponsesOf(callerId: string): Awaitable<number>;
  /** Records what the log shows of a request whose response was not given to putResponse (the first note of a request stays). */
  noteResponse(note: ResponseNote): Awaitable<void>;
  /** The note of a request, for the request log; undefined for a request that made no response. */
  responseOfRequest(requestId: string): Awaitable<ResponseNote | undefined>;
  /** Removes expired responses; returns how many. Safe on every instance at once. */
  sweepExpiredResponses(): Awaitable<number>;
}

/** Every method of ResponseStore, for the checks that a store has them. */
export const RESPONSE_STORE_METHODS = [
  'putResponse', 'getResponse', 'deleteResponse', 'listInputItems', 'deleteResponsesOf', 'noteResponse', 'responseOfRequest', 'sweepExpiredResponses',
] as const satisfies ReadonlyArray<keyof ResponseStore>;

const DAY_MS = 86_400_000;

/** When a response made at `createdAt` expires, kept `retentionDays`. */
export const responseExpiry = (createdAt: number, retentionDays: number): number => createdAt + retentionDays * DAY_MS;
