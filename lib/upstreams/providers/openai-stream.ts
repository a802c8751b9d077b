/** Turns OpenAI chat-completion chunks into the Anthropic stream event grammar. */
import type { EventSourceMessage } from 'eventsource-parser';
import { GatewayError } from '../../errors';
import type { MessageResponse, StreamEvent } from '../../types';
import { badUpstreamAnswer } from '../http/errors';
import { chunkError, messageUsage, stopReason, usageFromChat } from './openai-translate';
import type { UsageFigures } from '../types';

interface Chunk {
  choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: Parameters<typeof usageFromChat>[0];
}

/** One chunk of an OpenAI stream, or the error it is (invalid JSON, or an error object in either shape). */
function parseChunk(data: string, event: string | undefined, name: string): Chunk | GatewayError {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return badUpstreamAnswer(`upstream ${name} sent an invalid chunk: ${data.slice(0, 2000)}`);
  }
  if (typeof chunk !== 'object' || chunk === null) return badUpstreamAnswer(`upstream ${name} sent a non-object chunk`);
  const c = chunk as Record<string, unknown>;
  return (event === 'error' ? chunkError({ error: c.error ?? c }, name) : chunkError(c, name)) ?? (c as Chunk);
}

/**
 * Keeps the bookkeeping of one translated stream: one `message_start`, one text block at
 * index 0 opened on the first text, and `message_delta` + `message_stop` at the end with the
 * cumulative usage the upstream reported (held back until the usage chunk or `[DONE]`).
 */
export class ChatStreamTranslator {
  private started = false;
  private blockOpen = false;
  private finish: string | null | undefined;
  usage: UsageFigures | undefined;

  /** `name` is the upstream's, for errors. */
  constructor(private readonly id: string, private readonly model: string, private readonly name: string) {}

  /** Whether the upstream has sent its finish reason. */
  get finished(): boolean {
    return this.finish !== undefined;
  }

  /** Appends the events of one upstream SSE message (not `[DONE]`) to `events`; returns the error the message is, if it is one. */
  read(message: EventSourceMessage, events: StreamEvent[]): GatewayError | undefined {
    const chunk = parseChunk(message.data, message.event, this.name);
    if (chunk instanceof GatewayError) return chunk;
    this.start(events);
    const usage = usageFromChat(chunk.usage);
    if (usage) this.usage = usage;
    const choice = chunk.choices?.[0];
    const content = choice?.delta?.content;
    if (typeof content === 'string' && content.length > 0) {
      if (!this.blockOpen) {
        this.blockOpen = true;
        events.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      }
      events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: content } });
    }
    if (choice?.finish_reason) this.finish = choice.finish_reason;
    return undefined;
  }

  /** Appends the events that close the message, once the upstream is done; returns `events`. */
  end(events: StreamEvent[]): StreamEvent[] {
    this.start(events);
    if (this.blockOpen) events.push({ type: 'content_block_stop', index: 0 });
    this.blockOpen = false;
    events.push({ type: 'message_delta', delta: { stop_reason: stopReason(this.finish), stop_sequence: null }, usage: messageUsage(this.usage) });
    events.push({ type: 'message_stop' });
    return events;
  }

  private start(events: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    const message: MessageResponse = {
      id: this.id, type: 'message', role: 'assistant', model: this.model, content: [],
      stop_reason: null, stop_sequence: null, usage: messageUsage(undefined),
    };
    events.push({ type: 'message_start', message });
  }
}
