/**
 * The Anthropic Messages format: the content model (lib/messages) is its own, so nothing is
 * translated; what is Anthropic-wire-specific lives here, for the Messages route and the Anthropic
 * adapter to import. Nothing else of this folder is public.
 */

// An Anthropic-format upstream: its event data, error events and usage figures, read.
export { parseEventData, streamErrorFrom, usageFromAnthropic } from './events';
// Content frames forwarded as the upstream wrote them (the Messages route's fast path).
export { forwardable, ForwardedFrame, type FrameBatch } from './frames';
// The Messages route: events and forwarded frames as SSE frames; its keep-alive.
export { messagesFrames, PING } from './stream';
