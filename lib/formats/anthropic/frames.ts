/**
 * The Messages streams' speed trick: a content event passed on as the frame the upstream wrote,
 * unparsed. Only the built-in Anthropic adapter offers it, and the Messages proxy takes it only
 * when the model's adapter *is* that adapter object (a wrapper or failover() never gets it), so
 * every other consumer of `stream()` gets complete event objects (docs/decisions.md).
 */
import type { StreamEvent } from '../../messages/events';
import type { MessagesRequest } from '../../messages/request';
import type { MessagesAdapter, UpstreamCallContext } from '../../upstreams/types';

/** An upstream SSE frame passed on as written; `type` is its event name, checked against its data. */
export class ForwardedFrame {
  constructor(readonly type: string, readonly text: string) {}
}

/** One batch of a forwarding stream: parsed events and forwarded frames, in order. */
export type FrameBatch = Array<StreamEvent | ForwardedFrame>;

/** A built-in adapter's stream that may yield forwarded frames. */
export type ForwardingStream = (request: MessagesRequest, ctx: UpstreamCallContext) => AsyncIterable<FrameBatch>;

const offered = new WeakMap<MessagesAdapter, ForwardingStream>();

/** Registers `stream` as the forwarding stream of exactly this adapter object; returns the adapter. */
export function offerForwarding<A extends MessagesAdapter>(adapter: A, stream: ForwardingStream): A {
  offered.set(adapter, stream);
  return adapter;
}

/** The forwarding stream of this very adapter object, if it is a built-in one that offers it. */
export function forwardingStreamOf(adapter: MessagesAdapter): ForwardingStream | undefined {
  return offered.get(adapter);
}

/** Events whose frames are forwarded: they carry no usage, no model name and no stop. */
const CONTENT_EVENTS: ReadonlySet<string> = new Set(['content_block_start', 'content_block_delta', 'content_block_stop']);

/**
 * The frame of a content event whose data begins with its own type, as JSON.stringify writes it
 * (so the frame equals the one written from the parsed event); undefined for anything else.
 */
export function forwardable(event: string, data: string): ForwardedFrame | undefined {
  if (!CONTENT_EVENTS.has(event) || !data.startsWith(`{"type":"${event}"`)) return undefined;
  return new ForwardedFrame(event, `event: ${event}\ndata: ${data}\n\n`);
}
