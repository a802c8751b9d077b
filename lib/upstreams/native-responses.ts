/**
 * Native Responses pass-through: which adapters answer a Responses request as the upstream
 * itself would (openaiResponsesAdapter, and failover() of adapters that all do). Offered only by
 * the very adapter object that registered it, as forwarding is (lib/upstreams/forwarding.ts): a
 * wrapper around a built-in adapter is served through its `stream()` and `create()`, translated.
 */
import type { MessagesAdapter, UpstreamCallContext } from './types';

type Item = Record<string, unknown>;

/** An upstream event, parsed. */
export type NativeUpstreamEvent = { type: string; [field: string]: unknown };

/** A stored response a request chains from, as a native upstream gets it. */
export interface NativeChain {
  /** The stored `upstreamResponseId`: meaningful only to the upstream that wrote it (each adapter checks that it is its own); null when none. */
  readonly upstreamRef: string | null;
  /** Its history (input items, then output), sent in front of the input when the reference cannot be used. */
  readonly history: ReadonlyArray<Item>;
}

/** What an adapter reports of one pass-through call, for the response store and the request log. */
export interface NativeOutcome {
  /** The reference to store when the upstream stored the answer (its id, bound to that upstream). */
  upstreamRef?: string;
  /** How a chain was sent: `as <upstream>'s previous_response_id`, or `history resent (<why>)`. */
  chained?: string;
  /** What was left out of the request (another upstream family's reasoning), for the log's detail. */
  readonly dropped: string[];
}

/** One pass-through call. */
export interface NativeCall {
  /** The body as the client sent it but `model` (the upstream's) and `previous_response_id` (the gateway's: see `chain`). */
  readonly body: Readonly<Item>;
  readonly chain?: NativeChain;
  readonly outcome: NativeOutcome;
}

/** The pass-through of one adapter: the upstream's response object, or its events in order (several per read). */
export interface NativeResponses {
  create(call: NativeCall, ctx: UpstreamCallContext): Promise<Item>;
  stream(call: NativeCall, ctx: UpstreamCallContext): AsyncIterable<readonly NativeUpstreamEvent[]>;
}

const offered = new WeakMap<MessagesAdapter, NativeResponses>();

/** Registers the pass-through of exactly this adapter object; returns the adapter. */
export function offerNativeResponses<A extends MessagesAdapter>(adapter: A, native: NativeResponses): A {
  offered.set(adapter, native);
  return adapter;
}

/** The pass-through of this very adapter object, if it offers one. */
export function nativeResponsesOf(adapter: MessagesAdapter): NativeResponses | undefined {
  return offered.get(adapter);
}
