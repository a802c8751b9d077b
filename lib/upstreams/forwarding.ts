/**
 * The Anthropic forwarding fast path, offered through the adapter interface (`MessagesAdapter.forward`):
 * the built-in Anthropic adapter's content frames (lib/formats/anthropic/frames.ts) go to the client
 * unparsed. The face names the adapter it belongs to (`of`), and the Messages proxy takes it only
 * when that is the model's adapter itself: a copy or a wrapper (`{ ...adapter, stream }`) is served
 * through its own `stream()`, with complete event objects (docs/adapters.md, docs/decisions.md).
 */
import type { FrameBatch } from '../formats/anthropic';
import type { MessagesRequest } from '../messages/request';
import type { MessagesAdapter, UpstreamCallContext } from './types';

/** A built-in adapter's stream that may yield forwarded frames; `runs`: consecutive ones as one (the caller passes them on unread). */
export type ForwardingStream = (request: MessagesRequest, ctx: UpstreamCallContext, runs: boolean) => AsyncIterable<FrameBatch>;

/** The forwarding face of an adapter: its frames stream, and the adapter it serves (used only when that is the model's adapter). */
export interface ForwardingFace {
  readonly of: MessagesAdapter;
  readonly stream: ForwardingStream;
}

/** `adapter` with the forwarding face `stream`, bound to the returned object (frozen, as the built-in adapters are). */
export function offerForwarding<A extends MessagesAdapter>(adapter: A, stream: ForwardingStream): A {
  const bound: { -readonly [K in keyof MessagesAdapter]: MessagesAdapter[K] } = { ...adapter };
  bound.forward = Object.freeze({ of: bound, stream });
  return Object.freeze(bound) as A;
}

/** The forwarding stream `adapter` offers for itself: its face, when the face is bound to this very object. */
export function forwardingStreamOf(adapter: MessagesAdapter): ForwardingStream | undefined {
  const face = adapter.forward;
  return face !== undefined && face.of === adapter ? face.stream : undefined;
}
