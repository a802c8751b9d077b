/** An OpenAI-format upstream's chunks → the Anthropic stream grammar, in the shape agents read without tripping. */
import type { EventSourceMessage } from 'eventsource-parser';
import { GatewayError, SAFE_MESSAGES } from '../../foundation/errors';
import type { ContentBlock } from '../../messages/content';
import type { StreamEvent } from '../../messages/events';
import type { MessageResponse } from '../../messages/request';
import { badUpstreamAnswer, codeForUpstreamStatus } from '../../foundation/answer-errors';
import type { UsageFigures } from '../../types';
import { reasoningOf, toolInput, toolUseId } from './answer-from-chat';
import { gatewaySignature, type ReasoningField } from '../../messages/gateway-thinking';
import { stopReasonOf } from './tables';
import type { RestoreName } from './tool-names';
import type { ChunkToolCall, UpstreamChunk } from './types';
import { messageUsage, usageFromChat } from './usage';
import { quickChunk } from './quick-chunk';

/** An error object in a stream chunk, in the wrapped (`{error:{…}}`) and unwrapped (`{object:"error"}`) shapes. */
export function chunkError(chunk: Record<string, unknown>, name: string): GatewayError | undefined {
  const wrapped = chunk.error && typeof chunk.error === 'object' ? (chunk.error as Record<string, unknown>) : undefined;
  if (!wrapped && chunk.object !== 'error') return undefined;
  const source = wrapped ?? chunk;
  const code = codeForUpstreamStatus(typeof source.code === 'number' ? source.code : 500);
  return new GatewayError(code, SAFE_MESSAGES[code], { detail: `upstream ${name} stream error: ${JSON.stringify(chunk).slice(0, 2000)}` });
}

/** One chunk, or the error it is (invalid JSON, or an error object in either shape). */
function parseChunk(data: string, event: string | undefined, name: string): UpstreamChunk | GatewayError {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return badUpstreamAnswer(`upstream ${name} sent an invalid chunk: ${data.slice(0, 2000)}`);
  }
  if (typeof chunk !== 'object' || chunk === null) return badUpstreamAnswer(`upstream ${name} sent a non-object chunk`);
  const c = chunk as Record<string, unknown>;
  return (event === 'error' ? chunkError({ error: c.error ?? c }, name) : chunkError(c, name)) ?? (c as UpstreamChunk);
}

type Kind = 'thinking' | 'text' | 'tool_use';

/** A tool call of the stream: its id, its block's index, its arguments so far and how much of them was checked. */
interface Call {
  id: string;
  block: number;
  args: string;
  checked: number;
}

/**
 * One translated stream. Exactly one `message_start` (with every usage field) comes first; one
 * block is open at a time and stops before the next starts, so each delta goes to an open block of
 * its type: reasoning to a thinking block (ended by the gateway's signature), text to a text block,
 * each call to its own tool_use block (a new `index`, or a new id at a reused index, opens one; its
 * name and first arguments may share a chunk), its arguments as `input_json_delta`. A call's
 * arguments are checked when its block stops, or at the finish reason (before the usage that
 * follows it): anything but a JSON object makes the answer invalid, as it does a JSON answer. The
 * stop reason is `tool_use` whenever a tool was called; `message_delta` carries the cumulative
 * usage, held back until the upstream is done (usage comes after the finish reason).
 */
export class ChatStreamTranslator {
  private started = false;
  private open: Kind | undefined;
  private index = -1;
  private reasoningField: ReasoningField = 'reasoning_content';
  private readonly calls = new Map<number, Call>();
  /** The call whose block is open, if one is. */
  private openCall: Call | undefined;
  private finish: string | null | undefined;
  usage: UsageFigures | undefined;

  /** `name` is the upstream's, for errors; `restore` gives shortened tool names back. */
  constructor(private readonly id: string, private readonly model: string, private readonly name: string, private readonly restore: RestoreName) {}

  /** Whether the upstream has sent its finish reason. */
  get finished(): boolean {
    return this.finish !== undefined;
  }

  /** Appends the events of one upstream SSE message (not `[DONE]`) to `events`; returns the error the message is, if it is one. */
  read(message: EventSourceMessage, events: StreamEvent[]): GatewayError | undefined {
    // Text deltas and argument fragments as OpenAI writes them are matched, not parsed (quick-chunk.ts).
    const chunk = (message.event === undefined && quickChunk(message.data)) || parseChunk(message.data, message.event, this.name);
    if (chunk instanceof GatewayError) return chunk;
    this.start(events);
    const usage = usageFromChat(chunk.usage);
    if (usage) this.usage = usage;
    const choice = chunk.choices?.[0];
    const delta = choice?.delta;
    if (delta) {
      const reasoning = reasoningOf(delta);
      if (reasoning) {
        const failure = this.enter('thinking', events, { type: 'thinking', thinking: '', signature: '' }, reasoning[0]);
        if (failure) return failure;
        events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'thinking_delta', thinking: reasoning[1] } });
      }
      const text = delta.content || delta.refusal;
      if (typeof text === 'string' && text !== '') {
        const failure = this.enter('text', events, { type: 'text', text: '' });
        if (failure) return failure;
        events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'text_delta', text } });
      }
      const calls = delta.tool_calls ?? [];
      for (let k = 0; k < calls.length; k++) {
        const failure = this.call(calls[k] as ChunkToolCall, k, events);
        if (failure) return failure;
      }
    }
    if (choice?.finish_reason) {
      this.finish = choice.finish_reason;
      return this.openCall && this.check(this.openCall);
    }
    return undefined;
  }

  /** Appends the events that close the message, once the upstream is done; returns the error the answer is, if it is one. */
  end(events: StreamEvent[]): GatewayError | undefined {
    this.start(events);
    const failure = this.close(events);
    if (failure) return failure;
    const stop_reason = stopReasonOf(this.finish, this.calls.size > 0);
    events.push({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: messageUsage(this.usage) });
    events.push({ type: 'message_stop' });
    return undefined;
  }

  /** A tool call fragment: a call not seen before opens its block; arguments go to the open block of their call. */
  private call(fragment: ChunkToolCall, position: number, events: StreamEvent[]): GatewayError | undefined {
    const at = typeof fragment.index === 'number' ? fragment.index : position;
    let call = this.calls.get(at);
    if (!call || (fragment.id && toolUseId(fragment.id) !== call.id)) {
      const id = toolUseId(fragment.id);
      const failure = this.enter('tool_use', events, { type: 'tool_use', id, name: this.restore(fragment.function?.name ?? ''), input: {} }, undefined, true);
      if (failure) return failure;
      call = { id, block: this.index, args: '', checked: -1 };
      this.calls.set(at, call);
      this.openCall = call;
    }
    const args = fragment.function?.arguments;
    if (typeof args !== 'string' || args === '') return undefined;
    if (call.block !== this.index) return badUpstreamAnswer(`upstream ${this.name} sent arguments for tool call ${at} after another call began`);
    call.args += args;
    events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'input_json_delta', partial_json: args } });
    return undefined;
  }

  /** Makes a block of `kind` the open one, stopping the one before; a tool call always opens its own. */
  private enter(kind: Kind, events: StreamEvent[], block: ContentBlock, field?: ReasoningField, always = false): GatewayError | undefined {
    if (this.open === kind && !always) return undefined;
    const failure = this.close(events);
    if (failure) return failure;
    this.open = kind;
    this.index++;
    if (field) this.reasoningField = field;
    events.push({ type: 'content_block_start', index: this.index, content_block: block });
    return undefined;
  }

  /** Stops the open block; a tool call's arguments must be whole by then. */
  private close(events: StreamEvent[]): GatewayError | undefined {
    if (this.open === undefined) return undefined;
    if (this.openCall) {
      const failure = this.check(this.openCall);
      if (failure) return failure;
      this.openCall = undefined;
    }
    if (this.open === 'thinking') events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'signature_delta', signature: gatewaySignature(this.reasoningField) } });
    events.push({ type: 'content_block_stop', index: this.index });
    this.open = undefined;
    return undefined;
  }

  /** The error a call's arguments make, if they are not a JSON object (see toolInput). */
  private check(call: Call): GatewayError | undefined {
    if (call.checked === call.args.length) return undefined; // checked at the finish reason, nothing added since
    call.checked = call.args.length;
    const input = toolInput(call.args, this.name);
    return input instanceof GatewayError ? input : undefined;
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
