/** Turns the Anthropic events of a stream into Chat Completions chunks (`chat.completion.chunk` frames). */
import type { MessageUsage, StreamEvent } from '../types';
import { chunkFrames } from '../wire/chunk-envelope';
import { dataFrame, DONE } from '../wire/sse-writer';
import { chatUsage, finishReason } from './translate';

type Delta = { role?: 'assistant'; content?: string };

/**
 * One translated stream: a first chunk with the role, one chunk per text delta, a chunk with the
 * finish reason, then (with `include_usage`) a chunk with no choices and the usage, and `[DONE]`.
 */
export class ChatChunks {
  private usage: Partial<MessageUsage> = {};
  private readonly frameOf: (choice: object) => string;

  constructor(
    private readonly id: string,
    private readonly model: string,
    private readonly created: number,
    private readonly includeUsage: boolean,
  ) {
    this.frameOf = chunkFrames({ id, created, model, includeUsage });
  }

  private chunk(delta: Delta, finish: string | null): string {
    return this.frameOf({ index: 0, delta, logprobs: null, finish_reason: finish });
  }

  /** The frames for a batch of events; `message_stop` ends them with the usage (if asked for) and `[DONE]`. */
  framesOf(events: readonly StreamEvent[]): string {
    let text = '';
    for (const event of events) {
      switch (event.type) {
        case 'message_start': {
          const usage = (event.message as { usage?: Partial<MessageUsage> } | undefined)?.usage;
          if (usage) this.usage = { ...usage };
          text += this.chunk({ role: 'assistant', content: '' }, null);
          break;
        }
        case 'content_block_delta': {
          const delta = event.delta as { type?: string; text?: unknown } | undefined;
          if (delta?.type === 'text_delta' && typeof delta.text === 'string') text += this.chunk({ content: delta.text }, null);
          break;
        }
        case 'message_delta': {
          const usage = event.usage as Partial<MessageUsage> | undefined;
          if (usage) this.usage = { ...this.usage, ...usage };
          text += this.chunk({}, finishReason((event.delta as { stop_reason?: unknown } | undefined)?.stop_reason));
          break;
        }
        case 'message_stop':
          if (this.includeUsage) {
            text += dataFrame({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage: chatUsage(this.usage) });
          }
          text += dataFrame(DONE);
          break;
        default: // ping, content_block_start / _stop: nothing to say in this format
      }
    }
    return text;
  }
}
