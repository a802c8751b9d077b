/** Turns OpenAI chat-completion chunks into the Anthropic stream event grammar. */
import { rawEvent } from '../streaming/sse-writer';
import type { StreamEvent } from '../types';
import { messageUsage, stopReason, usageFromChat } from './openai-translate';
import type { UsageFigures } from './types';

interface Chunk {
  choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: Parameters<typeof usageFromChat>[0];
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

  constructor(private readonly id: string, private readonly model: string) {}

  /** Whether the upstream has sent its finish reason. */
  get finished(): boolean {
    return this.finish !== undefined;
  }

  /** Appends the events of one upstream chunk to `events`. */
  push(chunk: Chunk, events: StreamEvent[]): void {
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
      // The most frequent event: serialised here from its one variable part, not as an object.
      events.push(rawEvent('content_block_delta', `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(content)}}}`));
    }
    if (choice?.finish_reason) this.finish = choice.finish_reason;
  }

  /** Appends the events that close the message, once the upstream is done; returns `events`. */
  end(events: StreamEvent[]): StreamEvent[] {
    this.start(events);
    if (this.blockOpen) events.push({ type: 'content_block_stop', index: 0 });
    this.blockOpen = false;
    const usage = messageUsage(this.usage);
    events.push({
      type: 'message_delta',
      delta: { stop_reason: stopReason(this.finish), stop_sequence: null },
      usage: { ...usage },
    });
    events.push({ type: 'message_stop' });
    return events;
  }

  private start(events: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    events.push({
      type: 'message_start',
      message: {
        id: this.id, type: 'message', role: 'assistant', model: this.model, content: [],
        stop_reason: null, stop_sequence: null, usage: messageUsage(undefined),
      },
    });
  }
}
