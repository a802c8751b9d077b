/** Turns OpenAI chat-completion chunks into the Anthropic stream event grammar. */
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

  /** Events for one upstream chunk. */
  push(chunk: Chunk): StreamEvent[] {
    const events = this.start();
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
    return events;
  }

  /** Events that close the message, once the upstream is done. */
  end(): StreamEvent[] {
    const events = this.start();
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

  private start(): StreamEvent[] {
    if (this.started) return [];
    this.started = true;
    return [{
      type: 'message_start',
      message: {
        id: this.id, type: 'message', role: 'assistant', model: this.model, content: [],
        stop_reason: null, stop_sequence: null, usage: messageUsage(undefined),
      },
    }];
  }
}
