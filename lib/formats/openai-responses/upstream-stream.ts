/**
 * Responses → Messages, the stream: a Responses upstream's events as the Anthropic stream grammar.
 * One `message_start` first; each output text part, function call and reasoning item is one block,
 * started, given its deltas and stopped before the next starts; the terminal event gives
 * `message_delta` (stop reason, usage) and `message_stop`. A call's arguments are checked when its
 * item is done (anything but a JSON object is an invalid answer); a failure is thrown as its error.
 */
import type { StreamEvent } from '../../messages/events';
import type { MessageResponse } from '../../messages/request';
import type { UsageFigures } from '../../types';
import { toolUseIdOf } from './ids';
import { callInput, failureFrom, messageUsageOf, stopReasonOfResponse, usageFromResponses } from './upstream-answer';
import { reasoningTextOf, sealedSignature, type UpstreamReasoning } from './upstream-reasoning';

type Event = Record<string, unknown> & { type: string };
type Item = Record<string, unknown>;

/** The open block: what it is, the key of what writes into it, what it got so far. */
interface Open {
  kind: 'text' | 'call' | 'custom' | 'reasoning';
  key: string;
  streamed: string;
}

/** One translated stream; `read` takes the upstream's events in order, `finished` says the terminal event came. */
export class ResponsesUpstreamStream {
  private started = false;
  private index = -1;
  private open: Open | undefined;
  private calledTools = false;
  finished = false;
  usage: UsageFigures | undefined;

  /** `origin` seals the reasoning (the upstream's identity); `name` is the upstream's, for errors. */
  constructor(private readonly id: string, private readonly model: string, private readonly origin: string, private readonly name: string) {}

  /** Appends the Messages events of one upstream event to `out`; throws the error a failure is. */
  read(event: Event, out: StreamEvent[]): void {
    this.start(out);
    const key = `${String(event.item_id ?? '')}/${String(event.content_index ?? '')}`;
    switch (event.type) {
      case 'response.output_item.added':
        return this.itemAdded((event.item ?? {}) as Item, out);
      case 'response.content_part.added':
        return this.enter({ kind: 'text', key, streamed: '' }, { type: 'text', text: '' }, out);
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return this.delta('text', key, { type: 'text_delta', text: event.delta }, out);
      case 'response.content_part.done':
        if (this.open?.key === key) this.close(out);
        return;
      case 'response.function_call_arguments.delta':
        return this.delta('call', String(event.item_id ?? ''), { type: 'input_json_delta', partial_json: event.delta }, out);
      case 'response.reasoning_summary_part.added':
        if (this.open?.kind === 'reasoning' && this.open.streamed !== '') this.delta('reasoning', this.open.key, { type: 'thinking_delta', thinking: '\n\n' }, out);
        return;
      case 'response.reasoning_summary_text.delta':
        return this.delta('reasoning', String(event.item_id ?? ''), { type: 'thinking_delta', thinking: event.delta }, out);
      case 'response.output_item.done':
        return this.itemDone((event.item ?? {}) as Item, out);
      case 'response.completed':
      case 'response.incomplete':
        return this.end((event.response ?? {}) as Item, out);
      case 'response.failed':
        throw failureFrom(((event.response ?? {}) as Item).error, this.name);
      case 'error':
        throw failureFrom(event, this.name);
      default: // lifecycle, annotations, hosted tools' progress: nothing in the Messages grammar
    }
  }

  private itemAdded(item: Item, out: StreamEvent[]): void {
    const key = String(item.id ?? '');
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      this.calledTools = true;
      const block = { type: 'tool_use', id: toolUseIdOf(String(item.call_id ?? item.id ?? '')), name: String(item.name ?? ''), input: {} };
      this.enter({ kind: item.type === 'function_call' ? 'call' : 'custom', key, streamed: '' }, block, out);
    } else if (item.type === 'reasoning') {
      this.enter({ kind: 'reasoning', key, streamed: '' }, { type: 'thinking', thinking: '', signature: '' }, out);
    }
  }

  /** A whole item: what its deltas left out is sent, a call's arguments checked, reasoning signed; its block stops. */
  private itemDone(item: Item, out: StreamEvent[]): void {
    const open = this.open;
    if (!open || open.key !== String(item.id ?? '')) return;
    if (open.kind === 'call') {
      const args = typeof item.arguments === 'string' ? item.arguments : '';
      if (open.streamed === '' && args !== '') this.delta('call', open.key, { type: 'input_json_delta', partial_json: args }, out);
      callInput(open.streamed, this.name);
    } else if (open.kind === 'custom') {
      this.delta('custom', open.key, { type: 'input_json_delta', partial_json: JSON.stringify({ input: String(item.input ?? '') }) }, out);
    } else if (open.kind === 'reasoning') {
      const text = reasoningTextOf(item as UpstreamReasoning);
      if (open.streamed === '' && text !== '') this.delta('reasoning', open.key, { type: 'thinking_delta', thinking: text }, out);
      out.push({ type: 'content_block_delta', index: this.index, delta: { type: 'signature_delta', signature: sealedSignature(item as UpstreamReasoning, this.origin) } });
    }
    this.close(out);
  }

  private delta(kind: Open['kind'], key: string, delta: Record<string, unknown>, out: StreamEvent[]): void {
    const open = this.open;
    const piece = delta.text ?? delta.partial_json ?? delta.thinking;
    if (!open || open.kind !== kind || open.key !== key || typeof piece !== 'string' || piece === '') return;
    open.streamed += piece;
    out.push({ type: 'content_block_delta', index: this.index, delta });
  }

  private enter(open: Open, block: Record<string, unknown>, out: StreamEvent[]): void {
    this.close(out);
    this.index++;
    this.open = open;
    out.push({ type: 'content_block_start', index: this.index, content_block: block });
  }

  private close(out: StreamEvent[]): void {
    if (!this.open) return;
    this.open = undefined;
    out.push({ type: 'content_block_stop', index: this.index });
  }

  private end(response: Item, out: StreamEvent[]): void {
    this.close(out);
    this.finished = true;
    this.usage = usageFromResponses(response.usage);
    const stop_reason = stopReasonOfResponse(response, this.calledTools);
    out.push({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: messageUsageOf(response.usage) });
    out.push({ type: 'message_stop' });
  }

  private start(out: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    const message: MessageResponse = {
      id: this.id, type: 'message', role: 'assistant', model: this.model, content: [],
      stop_reason: null, stop_sequence: null, usage: messageUsageOf(undefined),
    };
    out.push({ type: 'message_start', message });
  }
}
