/**
 * The Anthropic Messages format: the content model (lib/messages) is its own, so nothing is
 * translated; what is Anthropic-wire-specific lives here, for the Messages route and the Anthropic
 * adapter to import. Nothing else of this folder is public.
 *
 * Every format's index exports constants, never values by `export … from`: TypeScript's CommonJS
 * re-exports are getters that put the exports object in dictionary mode, so each name read through
 * it would be a slow lookup, and the adapter and the V1 filter read these once per frame.
 */
import * as events from './events';
import * as frames from './frames';
import * as reader from './frame-reader';
import * as stream from './stream';

/** An Anthropic-format upstream: its event data, error events and usage figures, read. */
export const { parseEventData, streamErrorFrom, usageFromAnthropic } = events;
/** Content frames forwarded as the upstream wrote them (the Messages route's fast path). */
export const { forwardable, ForwardedFrame } = frames;
export type ForwardedFrame = frames.ForwardedFrame;
export type { FrameBatch } from './frames';
/** The forwarding stream's reader of an upstream body: content frames unread, the rest to parse. */
export const { AnthropicFrameReader } = reader;
export type AnthropicFrameReader = reader.AnthropicFrameReader;
/** The Messages route: events and forwarded frames as SSE frames; its keep-alive. */
export const { messagesFrames, PING } = stream;
