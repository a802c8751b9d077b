/**
 * Which adapter forwards frames (lib/formats/anthropic/frames.ts): only the built-in Anthropic
 * adapter offers it, and the Messages proxy takes it only when the model's adapter *is* that
 * adapter object (a wrapper or failover() never gets it), so every other consumer of `stream()`
 * gets complete event objects (docs/decisions.md).
 */
import type { FrameBatch } from '../formats/anthropic';
import type { MessagesRequest } from '../messages/request';
import type { MessagesAdapter, UpstreamCallContext } from './types';

/** A built-in adapter's stream that may yield forwarded frames; `runs`: consecutive ones as one (the caller passes them on unread). */
export type ForwardingStream = (request: MessagesRequest, ctx: UpstreamCallContext, runs: boolean) => AsyncIterable<FrameBatch>;

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
