/**
 * The Messages streams' speed trick, its wire part: a content event passed on as the frame the
 * upstream wrote, unparsed, recognised by its event name and the start of its data. Which adapter
 * offers it, and when the Messages proxy takes it, is lib/upstreams/forwarding.ts (docs/decisions.md).
 */
import type { StreamEvent } from '../../messages/events';

/** An upstream SSE frame passed on as written; `type` is its event name, checked against its data. */
export class ForwardedFrame {
  constructor(readonly type: string, readonly text: string) {}
}

/** One batch of a forwarding stream: parsed events and forwarded frames, in order. */
export type FrameBatch = Array<StreamEvent | ForwardedFrame>;

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
