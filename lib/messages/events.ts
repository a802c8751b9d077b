/** The events of a Messages stream: the documented grammar, typed, and open to event and delta types added later. */
import type { ContentBlock } from './content';
import type { MessageResponse, MessageUsage, StopReason } from './request';

/** One event of an Anthropic-format stream; `type` equals the SSE event name. Every event type, known or not. */
export interface StreamEvent {
  type: string;
  [field: string]: unknown;
}

/** What a Messages adapter's stream yields: one event, or several (those of one upstream read) at once. */
export type StreamItem = StreamEvent | readonly StreamEvent[];

/** A delta of a content block: text, tool input JSON, thinking, its signature, citations, or a newer type. */
export type BlockDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: string; [field: string]: unknown };

/** The events of the documented grammar, by `type`. */
export interface KnownEvents {
  message_start: { type: 'message_start'; message: MessageResponse };
  content_block_start: { type: 'content_block_start'; index: number; content_block: ContentBlock };
  content_block_delta: { type: 'content_block_delta'; index: number; delta: BlockDelta };
  content_block_stop: { type: 'content_block_stop'; index: number };
  /** `usage` is cumulative: the figures so far for the whole message. */
  message_delta: { type: 'message_delta'; delta: { stop_reason: StopReason | null; stop_sequence: string | null }; usage: Partial<MessageUsage> };
  message_stop: { type: 'message_stop' };
  ping: { type: 'ping' };
  error: { type: 'error'; error: { type: string; message: string } };
}

/** Narrows an event to a known type. */
export function isEvent<K extends keyof KnownEvents>(event: StreamEvent, type: K): event is StreamEvent & KnownEvents[K] {
  return event.type === type;
}
