/**
 * Messages stream events → the Responses event stream: `response.created` and `.in_progress`; per
 * output item `output_item.added`, its part and delta events, `output_item.done` (the item whole);
 * then `response.completed` or `.incomplete` carrying the whole output and the usage. Every event
 * has the next `sequence_number`; one response id from first to last.
 */
import type { ErrorCode, UpstreamTerms } from '../../foundation/errors';
import { invalidToolInput } from '../../foundation/answer-errors';
import { toolArguments, type ContentBlock } from '../../messages/content';
import type { StreamEvent } from '../../messages/events';
import type { MessageUsage, StopReason } from '../../messages/request';
import { frame } from '../../wire/sse-writer';
import { failureOf } from './errors';
import { newId } from './ids';
import { callItem, customInputOf, messageItem, outputText, reasoningItem, webSearchItem } from './output';
import type { ReasoningBlock } from './reasoning';
import { deltaFrames, type DeltaFrame } from './delta-frames';
import { isIncomplete, type ResponseEnvelope } from './response';
import { WEB_SEARCH_TOOL } from './tools';
import type { CustomToolCallItem, FunctionCallItem, MessageItem, OutputItem, OutputText, ReasoningItem, ResponseObject, WebSearchItem } from './types';

/** Stands for a response's JSON in an event's frame (responseEvent). */
const MARK_VALUE = '\u0000mgw-response';
const MARK = JSON.stringify(MARK_VALUE);

/** What an open content block is being written into. */
type Open =
  | { kind: 'text'; part: OutputText; at: number; content: number; id: string; deltas?: DeltaFrame }
  | { kind: 'reasoning'; item: ReasoningItem; at: number; block: ReasoningBlock; summarised: boolean }
  | { kind: 'call'; item: FunctionCallItem | CustomToolCallItem; at: number; json: string; deltas?: DeltaFrame }
  | { kind: 'search'; item: WebSearchItem; at: number; json: string };

/** One stream's translator; `framesOf` takes the adapter's events in order, `keepAlive` and `failed` write what streamAnswer() asks for. */
export class ResponsesStream {
  private seq = 0;
  private started = false;
  private readonly output: OutputItem[] = [];
  private readonly open = new Map<number, Open>();
  /** The message item text blocks write into (consecutive text blocks share it), until another block starts. */
  private message: { item: MessageItem; at: number } | undefined;
  private usage: Partial<MessageUsage> | undefined;
  private stop: StopReason | null = null;
  private final: ResponseObject | undefined;

  constructor(private readonly envelope: ResponseEnvelope) {}

  private event(type: string, fields: Record<string, unknown>): string {
    return frame({ type, ...fields, sequence_number: this.seq++ });
  }

  /** An event carrying a response, written around the response's JSON (see ResponseEnvelope.json). */
  private responseEvent(type: string, json: string): string {
    const text = this.event(type, { response: MARK_VALUE });
    const at = text.indexOf(MARK); // the type comes before, and holds no marker
    return text.slice(0, at) + json + text.slice(at + MARK.length);
  }

  /** `response.created` and `response.in_progress`, once, before anything else. */
  private start(): string {
    if (this.started) return '';
    this.started = true;
    const response = this.envelope.json(this.envelope.object('in_progress', this.output, undefined));
    return this.responseEvent('response.created', response) + this.responseEvent('response.in_progress', response);
  }

  /**
   * The frames for a batch of events; `message_stop` ends them with the final response. An invalid
   * answer (a call's input that is not a JSON object) is thrown, and the batch's frames with it:
   * what failed() writes then follows the last frame written (its numbering, its output).
   */
  framesOf(events: readonly StreamEvent[]): string {
    const { seq, started } = this;
    const items = this.output.length;
    try {
      return this.framesOfBatch(events);
    } catch (err) {
      this.seq = seq;
      this.started = started;
      this.output.length = items;
      throw err;
    }
  }

  private framesOfBatch(events: readonly StreamEvent[]): string {
    let text = this.start();
    for (const event of events) {
      switch (event.type) {
        case 'message_start':
          this.usage = { ...((event.message as { usage?: Partial<MessageUsage> } | undefined)?.usage ?? {}) };
          break;
        case 'content_block_start':
          text += this.blockStart(event.index as number, (event.content_block ?? {}) as ContentBlock);
          break;
        case 'content_block_delta':
          text += this.blockDelta(this.open.get(event.index as number), (event.delta ?? {}) as Record<string, unknown>);
          break;
        case 'content_block_stop':
          text += this.blockStop(event.index as number);
          break;
        case 'message_delta':
          this.usage = { ...this.usage, ...(event.usage as Partial<MessageUsage> | undefined) };
          this.stop = ((event.delta as { stop_reason?: StopReason | null } | undefined)?.stop_reason ?? this.stop) as StopReason | null;
          break;
        case 'message_stop': {
          text += this.closeMessage();
          const response = this.finish();
          text += this.responseEvent(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', this.envelope.json(response));
          break;
        }
        default: // ping and events with no Responses counterpart
      }
    }
    return text;
  }

  /**
   * The final response, made once: what the final event carries. Read before `message_stop` is
   * given (the usage and stop reason known), it may be changed (its `store`) before that event is written.
   */
  finish(): ResponseObject {
    if (this.message) this.message.item.status = isIncomplete(this.stop) ? 'incomplete' : 'completed';
    return (this.final ??= this.envelope.final(this.stop, this.output, this.usage));
  }

  /** What a silence gets: the opening events, or `response.in_progress` with the output so far (a client's snapshot stays whole). */
  keepAlive(): string {
    return this.start() || this.event('response.in_progress', { response: this.envelope.object('in_progress', this.output, undefined) });
  }

  /** `response.failed` with a standard code (see failureOf) and the safe text, and the output so far. */
  failed(code: ErrorCode, message: string, terms?: UpstreamTerms): string {
    return this.start() + this.event('response.failed', { response: this.envelope.object('failed', this.output, this.usage, { error: failureOf(code, message, terms) }) });
  }

  private added(item: OutputItem): { text: string; at: number } {
    const at = this.output.push(item) - 1;
    return { text: this.event('response.output_item.added', { output_index: at, item }), at };
  }

  private itemDone(item: OutputItem, at: number): string {
    return this.event('response.output_item.done', { output_index: at, item });
  }

  private closeMessage(): string {
    const open = this.message;
    if (!open) return '';
    this.message = undefined;
    open.item.status = isIncomplete(this.stop) ? 'incomplete' : 'completed';
    return this.itemDone(open.item, open.at);
  }

  private blockStart(index: number, block: ContentBlock): string {
    if (block.type === 'text') {
      let text = '';
      if (!this.message) {
        const item = messageItem('in_progress');
        const added = this.added(item);
        text = added.text;
        this.message = { item, at: added.at };
      }
      const { item, at } = this.message;
      const part = outputText('');
      const content = item.content.push(part) - 1;
      this.open.set(index, { kind: 'text', part, at, content, id: item.id });
      text += this.event('response.content_part.added', { item_id: item.id, output_index: at, content_index: content, part });
      const initial = (block as { text?: unknown }).text;
      return typeof initial === 'string' && initial !== '' ? text + this.blockDelta(this.open.get(index), { type: 'text_delta', text: initial }) : text;
    }
    let text = this.closeMessage();
    const plan = this.envelope.plan;
    let open: Exclude<Open, { kind: 'text' }> | undefined;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      const held: ReasoningBlock = block.type === 'thinking'
        ? { type: 'thinking', thinking: String(block.thinking ?? ''), signature: String(block.signature ?? '') }
        : { type: 'redacted_thinking', data: String(block.data ?? '') };
      const item: ReasoningItem = { type: 'reasoning', id: newId('reasoning'), summary: [], status: 'in_progress' };
      open = { kind: 'reasoning', item, at: 0, block: held, summarised: false };
    } else if (block.type === 'tool_use') {
      open = { kind: 'call', item: callItem(String(block.id), String(block.name), '', plan, 'in_progress'), at: 0, json: '' };
    } else if (block.type === 'server_tool_use' && block.name === WEB_SEARCH_TOOL) {
      open = { kind: 'search', item: webSearchItem('', 'in_progress'), at: 0, json: '' };
    }
    if (!open) return text; // server tool results and blocks with no Responses item
    const added = this.added(open.item);
    open.at = added.at;
    this.open.set(index, open);
    return text + added.text;
  }

  private blockDelta(open: Open | undefined, delta: Record<string, unknown>): string {
    if (!open) return '';
    if (open.kind === 'text' && delta.type === 'text_delta' && typeof delta.text === 'string') {
      open.part.text += delta.text;
      open.deltas ??= deltaFrames('response.output_text.delta', { item_id: open.id, output_index: open.at, content_index: open.content, delta: '', logprobs: [] }, 'delta');
      return open.deltas(delta.text, this.seq++);
    }
    if (open.kind === 'reasoning' && open.block.type === 'thinking') {
      if (delta.type === 'signature_delta' && typeof delta.signature === 'string') open.block.signature += delta.signature;
      if (delta.type !== 'thinking_delta' || typeof delta.thinking !== 'string') return '';
      open.block.thinking += delta.thinking;
      if (!this.envelope.plan.summary || delta.thinking === '') return '';
      const fields = { item_id: open.item.id, output_index: open.at, summary_index: 0 };
      let text = '';
      if (!open.summarised) {
        open.summarised = true;
        open.item.summary.push({ type: 'summary_text', text: '' });
        text = this.event('response.reasoning_summary_part.added', { ...fields, part: { type: 'summary_text', text: '' } });
      }
      (open.item.summary[0] as { text: string }).text += delta.thinking;
      return text + this.event('response.reasoning_summary_text.delta', { ...fields, delta: delta.thinking });
    }
    if ((open.kind === 'call' || open.kind === 'search') && delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
      open.json += delta.partial_json;
      if (open.kind !== 'call' || open.item.type !== 'function_call' || delta.partial_json === '') return '';
      open.item.arguments += delta.partial_json;
      open.deltas ??= deltaFrames('response.function_call_arguments.delta', { item_id: open.item.id, output_index: open.at, delta: '' }, 'delta');
      return open.deltas(delta.partial_json, this.seq++);
    }
    return ''; // citations and newer deltas have no Responses counterpart here
  }

  private blockStop(index: number): string {
    const open = this.open.get(index);
    if (!open) return '';
    this.open.delete(index);
    const fields = { item_id: open.kind === 'text' ? open.id : open.item.id, output_index: open.at };
    if (open.kind === 'text') {
      return this.event('response.output_text.done', { ...fields, content_index: open.content, text: open.part.text, logprobs: [] })
        + this.event('response.content_part.done', { ...fields, content_index: open.content, part: open.part });
    }
    let text = '';
    if (open.kind === 'call' && !toolArguments(open.json)) throw invalidToolInput(open.json); // an invalid answer, never a completed call
    if (open.kind === 'reasoning') {
      const part = open.item.summary[0];
      if (part) {
        text += this.event('response.reasoning_summary_text.done', { ...fields, summary_index: 0, text: part.text });
        text += this.event('response.reasoning_summary_part.done', { ...fields, summary_index: 0, part });
      }
      Object.assign(open.item, reasoningItem(open.block, this.envelope.plan, open.item.id), { summary: open.item.summary });
    } else if (open.kind === 'search') {
      Object.assign(open.item, { status: 'completed', action: webSearchItem(open.json, 'completed').action });
    } else if (open.item.type === 'function_call') {
      open.item.arguments = open.json === '' ? '{}' : open.json;
      text += this.event('response.function_call_arguments.done', { ...fields, arguments: open.item.arguments, name: open.item.name });
    } else {
      open.item.input = customInputOf(open.json);
      if (open.item.input !== '') text += this.event('response.custom_tool_call_input.delta', { ...fields, delta: open.item.input });
      text += this.event('response.custom_tool_call_input.done', { ...fields, input: open.item.input });
    }
    open.item.status = 'completed';
    return text + this.itemDone(open.item, open.at);
  }
}
