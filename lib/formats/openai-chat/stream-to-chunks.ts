/** The Anthropic events of a stream → the chat route's `chat.completion.chunk` frames. */
import { invalidToolInput } from '../../foundation/answer-errors';
import { toolArguments } from '../../messages/content';
import type { StreamEvent } from '../../messages/events';
import type { MessageUsage } from '../../messages/request';
import { chunkFrames, stringFrames } from './chunk-envelope';
import { dataFrame, DONE } from '../../wire/sse-writer';
import { finishReasonOf } from './tables';
import { chatUsage } from './usage';

type Delta =
  | { role: 'assistant'; content: '' }
  | { content: string }
  | { reasoning_content: string }
  | { tool_calls: [{ index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }] }
  | Record<string, never>;

/** A chunk's one choice. */
const choiceOf = (delta: Delta, finish: string | null): object => ({ index: 0, delta, logprobs: null, finish_reason: finish });

/**
 * One translated stream: a first chunk with the role; a chunk per text delta (`content`), per
 * thinking delta (`reasoning_content`) and per tool call fragment (`tool_calls`: the first for a
 * call carries its index, id, type and name, later ones its arguments only, `{}` for a call without
 * input; calls are numbered 0, 1… in the order they start); a chunk with the finish reason; then (with `include_usage`) a
 * chunk with no choices and the usage, and `[DONE]`.
 */
export class ChatChunks {
  private usage: Partial<MessageUsage> = {};
  private readonly frameOf: (choice: object) => string;
  /** The frames of text and reasoning deltas, serialised but for their string (chunk-envelope.ts). */
  private textFrame: ((text: string) => string) | undefined;
  private reasoningFrame: ((text: string) => string) | undefined;
  /** Each tool_use block's call number, the arguments sent for it and its fragments' frames, by block index. */
  private calls: Map<number, { index: number; json: string; frame: (args: string) => string }> | undefined;

  constructor(
    private readonly id: string,
    private readonly model: string,
    private readonly created: number,
    private readonly includeUsage: boolean,
  ) {
    this.frameOf = chunkFrames({ id, created, model, includeUsage });
  }

  private chunk(delta: Delta, finish: string | null): string {
    return this.frameOf(choiceOf(delta, finish));
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
        case 'content_block_start': {
          const block = event.content_block as { type?: string; id?: string; name?: string } | undefined;
          if (block?.type !== 'tool_use') break;
          const calls = (this.calls ??= new Map());
          const index = calls.size;
          const frame = stringFrames(this.frameOf, (args) => choiceOf({ tool_calls: [{ index, function: { arguments: args } }] }, null));
          calls.set(event.index as number, { index, json: '', frame });
          text += this.chunk({ tool_calls: [{ index, id: String(block.id), type: 'function', function: { name: String(block.name), arguments: '' } }] }, null);
          break;
        }
        case 'content_block_delta':
          text += this.deltaFrame(event);
          break;
        case 'content_block_stop': {
          // A call without input still sends its arguments: "{}", which every client parses; any other
          // that is not a JSON object makes the answer invalid (never a finish reason "tool_calls").
          const call = this.calls?.get(event.index as number);
          if (call && call.json === '') text += this.chunk({ tool_calls: [{ index: call.index, function: { arguments: '{}' } }] }, null);
          else if (call && !toolArguments(call.json)) throw invalidToolInput(call.json);
          break;
        }
        case 'message_delta': {
          const usage = event.usage as Partial<MessageUsage> | undefined;
          if (usage) this.usage = { ...this.usage, ...usage };
          text += this.chunk({}, finishReasonOf((event.delta as { stop_reason?: unknown } | undefined)?.stop_reason));
          break;
        }
        case 'message_stop':
          if (this.includeUsage) {
            text += dataFrame({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage: chatUsage(this.usage) });
          }
          text += dataFrame(DONE);
          break;
        default: // ping, unknown events: nothing to say in this format
      }
    }
    return text;
  }

  private deltaFrame(event: StreamEvent): string {
    const delta = event.delta as { type?: string; text?: unknown; thinking?: unknown; partial_json?: unknown } | undefined;
    switch (delta?.type) {
      case 'text_delta':
        return typeof delta.text === 'string' ? (this.textFrame ??= stringFrames(this.frameOf, (content) => choiceOf({ content }, null)))(delta.text) : '';
      case 'thinking_delta':
        return typeof delta.thinking === 'string' ? (this.reasoningFrame ??= stringFrames(this.frameOf, (reasoning_content) => choiceOf({ reasoning_content }, null)))(delta.thinking) : '';
      case 'input_json_delta': {
        const call = this.calls?.get(event.index as number);
        if (call === undefined || typeof delta.partial_json !== 'string' || delta.partial_json === '') return '';
        call.json += delta.partial_json;
        return call.frame(delta.partial_json);
      }
      default: // signatures, citations and newer deltas have no chat counterpart
        return '';
    }
  }
}
