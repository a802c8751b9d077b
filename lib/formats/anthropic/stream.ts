/** The Messages route's stream: Messages events as Anthropic's SSE frames, forwarded frames as the upstream wrote them. */
import type { StreamEvent } from '../../messages/events';
import { frame } from '../../wire/sse-writer';
import { ForwardedFrame } from './frames';

/** The frames of a batch of events and forwarded frames, with the public model name `model` in `message_start`. */
export function messagesFrames(model: string): (items: readonly (StreamEvent | ForwardedFrame)[]) => string {
  return (items) => {
    let text = '';
    for (const event of items) {
      if (event instanceof ForwardedFrame) {
        text += event.text;
        continue;
      }
      const message = event.type === 'message_start' ? (event.message as Record<string, unknown> | undefined) : undefined;
      text += frame(message && typeof message === 'object' ? { ...event, message: { ...message, model } } : event);
    }
    return text;
  };
}

/** Messages' keep-alive: the `ping` event the API itself sends (clients skip it). */
export const PING = frame({ type: 'ping' });
