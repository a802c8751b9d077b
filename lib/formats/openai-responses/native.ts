/**
 * A native Responses upstream's answer, passed through to a Responses client: every event in the
 * upstream's order, each renumbered by the gateway (`sequence_number` counts what the client got:
 * a keep-alive or a failure the gateway writes takes the next number), every response object
 * carrying the gateway's id, the public model and the gateway's `previous_response_id`, and
 * `store` as the gateway's store decides. Plus what is taken out of a request before it goes
 * upstream: reasoning another upstream family made, and a resent history's reasoning.
 */
import { invalidAnswer } from '../../foundation/answer-errors';
import type { ErrorCode, UpstreamTerms } from '../../foundation/errors';
import { frame } from '../../wire/sse-writer';
import { failureOf } from './errors';
import type { ResponseEnvelope } from './response';
import type { ResponseObject } from './types';
import { parsableUsage } from './usage';

type Item = Record<string, unknown>;
/** An upstream event, parsed. */
export type NativeEvent = { type: string; [field: string]: unknown };

/** The events that end a response (each carries it whole). */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** The gateway's own encrypted reasoning (lib/formats/openai-responses/reasoning.ts): an Anthropic upstream's, never a Responses upstream's. */
const GATEWAY_CONTENT = 'mgw.';

/**
 * A client's input for a Responses upstream: without reasoning items whose encrypted content the
 * gateway made (another upstream family's reasoning), each listed in `dropped`; the same value when there are none.
 */
export function nativeInput(input: unknown, dropped: string[]): unknown {
  if (!Array.isArray(input)) return input;
  const foreign = (item: unknown): boolean => {
    const i = item as Item | null;
    return i?.type === 'reasoning' && typeof i.encrypted_content === 'string' && i.encrypted_content.startsWith(GATEWAY_CONTENT);
  };
  if (!input.some(foreign)) return input;
  return input.filter((item, n) => {
    if (!foreign(item)) return true;
    dropped.push(`input.${n} (reasoning another upstream family made)`);
    return false;
  });
}

/**
 * A stored history resent in full: without its reasoning items (an upstream that did not keep the
 * response cannot resolve their ids, and their encrypted content may be another upstream's).
 */
export function resentHistory(history: ReadonlyArray<Item>, dropped: string[]): Item[] {
  const kept = history.filter((item) => item.type !== 'reasoning');
  if (kept.length < history.length) dropped.push(`${history.length - kept.length} reasoning item(s) of the resent history`);
  return kept;
}

/** An event type an SSE `event:` line can carry: no control character (a line break would start a line of the upstream's making). */
const EVENT_TYPE = /^[^\u0000-\u001f\u007f]{1,256}$/;

/** One output item as the upstream's events declared it: its id, and whether it is done. */
interface Declared {
  readonly id: unknown;
  done: boolean;
}

/** The frames of one passed-through stream (see the file's header). */
export class NativeStream {
  private seq = 0;
  private readonly declared: Declared[] = [];
  private started = false;
  private final: ResponseObject | undefined;
  private snapshot: ResponseObject;
  private readonly output: unknown[] = [];

  /** `envelope` gives the gateway's id, model and creation time (and a response to show before the upstream's first). */
  constructor(private readonly envelope: ResponseEnvelope, private readonly previousId: string | null) {
    this.snapshot = envelope.object('in_progress', [], undefined);
  }

  /** An upstream response object as the client gets it (its usage one the client can parse: parsableUsage). */
  private rewrite(response: unknown): ResponseObject {
    const r = (typeof response === 'object' && response !== null ? response : {}) as Item;
    const usage = 'usage' in r ? { usage: parsableUsage(r.usage) } : {};
    return { ...r, id: this.envelope.id, model: this.envelope.model, previous_response_id: this.previousId, store: false, ...usage } as unknown as ResponseObject;
  }

  /** The final response of a terminal event, made once: the response keeper may set its `store` before the event is written. */
  finalOf(event: NativeEvent): ResponseObject {
    return (this.final ??= this.rewrite(event.response));
  }

  /** The response of a JSON answer, as the client gets it. */
  answer(body: unknown): ResponseObject {
    return this.rewrite(body);
  }

  private event(event: NativeEvent): string {
    return frame({ ...event, sequence_number: this.seq++ });
  }

  /**
   * Checks the item grammar of an upstream event, which Codex and the SDKs rely on (cheaply: no
   * content is compared): each item added once, at the next output_index; an item's events after
   * its `output_item.added` (carrying its id) and before its `output_item.done`; a type an event
   * line can carry. Anything else is an invalid answer: the stream ends with `response.failed`,
   * not billed.
   */
  private check(event: NativeEvent): void {
    const type = event.type;
    const bad = (why: string): never => {
      throw invalidAnswer(`upstream Responses stream: ${why}`);
    };
    if (!EVENT_TYPE.test(type)) bad(`an event type an SSE line cannot carry: ${JSON.stringify(type).slice(0, 200)}`);
    if (!('output_index' in event)) return; // lifecycle events and others of the whole response
    const at = event.output_index;
    if (type === 'response.output_item.added') {
      if (at !== this.declared.length) bad(`output_item.added at output_index ${JSON.stringify(at)}, where ${this.declared.length} was next`);
      this.declared.push({ id: (event.item as Item | null | undefined)?.id, done: false });
      return;
    }
    const item = typeof at === 'number' ? this.declared[at] : undefined;
    if (!item) return bad(`${type.slice(0, 100)} for output_index ${JSON.stringify(at)}, which was never added`);
    if (item.done) bad(`${type.slice(0, 100)} after output_item.done of item ${String(at)}`);
    const id = event.item_id ?? (event.item as Item | null | undefined)?.id;
    if (id !== undefined && item.id !== undefined && id !== item.id) bad(`${type.slice(0, 100)} for item ${JSON.stringify(id).slice(0, 100)}, not item ${String(at)}'s`);
    if (type === 'response.output_item.done') item.done = true;
  }

  framesOf(events: readonly NativeEvent[]): string {
    for (const event of events) this.check(event); // the whole batch before any of it is written: the numbering stays whole
    let text = '';
    for (let event of events) {
      if (event.type === 'response.created' && this.started) event = { ...event, type: 'response.in_progress' }; // the gateway opened the stream already
      if (event.type === 'response.created' || event.type === 'response.in_progress') this.started = true;
      if (event.type === 'response.output_item.done') this.output[Number(event.output_index ?? this.output.length)] = event.item;
      if (TERMINAL_EVENTS.has(event.type)) event = { ...event, response: this.finalOf(event) };
      else if ('response' in event) {
        this.snapshot = this.rewrite(event.response);
        event = { ...event, response: this.snapshot };
      }
      text += this.event(event);
    }
    return text;
  }

  /** What a silence gets: the opening events (the upstream's own `response.created` then counts as progress), or `response.in_progress`. */
  keepAlive(): string {
    const response = { ...this.snapshot, output: this.output.filter((i) => i !== undefined) };
    if (this.started) return this.event({ type: 'response.in_progress', response });
    this.started = true;
    return this.event({ type: 'response.created', response }) + this.event({ type: 'response.in_progress', response });
  }

  /** `response.failed` with a standard code (see failureOf) and the safe text, and the output so far. */
  failed(code: ErrorCode, message: string, terms?: UpstreamTerms): string {
    const response = { ...this.snapshot, status: 'failed', output: this.output.filter((i) => i !== undefined), error: failureOf(code, message, terms) };
    const opening = this.started ? '' : this.event({ type: 'response.created', response: this.snapshot }) + this.event({ type: 'response.in_progress', response: this.snapshot });
    this.started = true;
    return opening + this.event({ type: 'response.failed', response });
  }
}
