/**
 * Native Responses pass-through, offered through the adapter interface (`MessagesAdapter.responses`):
 * adapters that answer a Responses request as the upstream itself would (openaiResponsesAdapter,
 * and failover() of adapters that all do). The face names the adapter it belongs to (`of`), as
 * forwarding's does (lib/upstreams/forwarding.ts): a copy or a wrapper of such an adapter is served
 * through its own `stream()` and `create()`, translated.
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

/** The pass-through face of an adapter: the adapter it serves (used only when that is the model's adapter), and its calls. */
export interface NativeResponsesFace extends NativeResponses {
  readonly of: MessagesAdapter;
}

/** `adapter` with the pass-through `native`, bound to the returned object (frozen, as the built-in adapters are). */
export function offerNativeResponses<A extends MessagesAdapter>(adapter: A, native: NativeResponses): A {
  const bound: { -readonly [K in keyof MessagesAdapter]: MessagesAdapter[K] } = { ...adapter };
  bound.responses = Object.freeze({ of: bound, create: native.create, stream: native.stream });
  return Object.freeze(bound) as A;
}

/** The pass-through `adapter` offers for itself: its face, when the face is bound to this very object. */
export function nativeResponsesOf(adapter: MessagesAdapter): NativeResponses | undefined {
  const face = adapter.responses;
  return face !== undefined && face.of === adapter ? face : undefined;
}
