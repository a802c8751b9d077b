/** Turns OpenAI chat-completion chunks into the Anthropic stream event grammar. */
import type { EventSourceMessage } from 'eventsource-parser';
import { GatewayError } from '../errors';
import { messageText, usageText } from '../json-text';
import { withRaw } from '../raw-text';
import { rawEvent } from '../streaming/sse-writer';
import type { MessageResponse, StreamEvent } from '../types';
import { badUpstreamAnswer } from './errors';
import { ChunkShape } from './openai-chunk-shape';
import { chunkError, messageUsage, stopReason, usageFromChat } from './openai-translate';
import type { UsageFigures } from './types';

interface Chunk {
  choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: Parameters<typeof usageFromChat>[0];
}

/** One chunk of an OpenAI stream, or the error it is (invalid JSON, or an error object in either shape). */
function parseChunk(data: string, event: string | undefined, name: string): Record<string, unknown> | GatewayError {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return badUpstreamAnswer(`upstream ${name} sent an invalid chunk: ${data.slice(0, 2000)}`);
  }
  if (typeof chunk !== 'object' || chunk === null) return badUpstreamAnswer(`upstream ${name} sent a non-object chunk`);
  const c = chunk as Record<string, unknown>;
  return (event === 'error' ? chunkError({ error: c.error ?? c }, name) : chunkError(c, name)) ?? c;
}

// The translator's own events carry their JSON text, written from templates (see json-text.ts),
// so framing does not JSON.stringify them.
const BLOCK_START = '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}';
const BLOCK_STOP = '{"type":"content_block_stop","index":0}';
const MESSAGE_STOP = '{"type":"message_stop"}';

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
  /** Chunks read with JSON.parse (the others matched the learned shape). */
  parsed = 0;
  private readonly shape: ChunkShape | undefined;

  /** `name` is the upstream's, for errors; `shape: false` parses every chunk. */
  constructor(private readonly id: string, private readonly model: string, private readonly name: string, shape = true) {
    this.shape = shape ? new ChunkShape() : undefined;
  }

  /** Whether the upstream has sent its finish reason. */
  get finished(): boolean {
    return this.finish !== undefined;
  }

  /**
   * Appends the events of one upstream SSE message (not `[DONE]`) to `events`; returns the
   * error the message is, if it is one. A chunk shaped as the last parsed text chunk is read
   * without JSON.parse (see ChunkShape).
   */
  read(message: EventSourceMessage, events: StreamEvent[]): GatewayError | undefined {
    const plain = message.event !== 'error';
    const text = plain ? this.shape?.match(message.data) : undefined;
    if (text !== undefined) {
      this.start(events);
      if (text !== '""') this.text(text, events);
      return undefined;
    }
    this.parsed++;
    const chunk = parseChunk(message.data, message.event, this.name);
    if (chunk instanceof GatewayError) return chunk;
    const textOnly = this.push(chunk as Chunk, events);
    if (plain && textOnly) this.shape?.learn(message.data, chunk);
    return undefined;
  }

  /** Appends the events of one parsed chunk to `events`; returns whether it had no usage and no finish reason. */
  private push(chunk: Chunk, events: StreamEvent[]): boolean {
    this.start(events);
    const usage = usageFromChat(chunk.usage);
    if (usage) this.usage = usage;
    const choice = chunk.choices?.[0];
    const content = choice?.delta?.content;
    if (typeof content === 'string' && content.length > 0) this.text(JSON.stringify(content), events);
    if (choice?.finish_reason) this.finish = choice.finish_reason;
    return usage === undefined && !choice?.finish_reason;
  }

  /** Appends a text delta whose text is `literal`, a JSON string (quotes included). */
  private text(literal: string, events: StreamEvent[]): void {
    if (!this.blockOpen) {
      this.blockOpen = true;
      events.push(withRaw({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, BLOCK_START));
    }
    // The most frequent event: serialised here from its one variable part, not as an object.
    events.push(rawEvent('content_block_delta', `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${literal}}}`));
  }

  /** Appends the events that close the message, once the upstream is done; returns `events`. */
  end(events: StreamEvent[]): StreamEvent[] {
    this.start(events);
    if (this.blockOpen) events.push(withRaw({ type: 'content_block_stop', index: 0 }, BLOCK_STOP));
    this.blockOpen = false;
    const usage = messageUsage(this.usage);
    const delta = { stop_reason: stopReason(this.finish), stop_sequence: null };
    events.push(withRaw({ type: 'message_delta', delta, usage }, `{"type":"message_delta","delta":{"stop_reason":${JSON.stringify(delta.stop_reason)},"stop_sequence":null},"usage":${usageText(usage)}}`));
    events.push(withRaw({ type: 'message_stop' }, MESSAGE_STOP));
    return events;
  }

  private start(events: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    const message: MessageResponse = {
      id: this.id, type: 'message', role: 'assistant', model: this.model, content: [],
      stop_reason: null, stop_sequence: null, usage: messageUsage(undefined),
    };
    events.push(withRaw({ type: 'message_start', message }, `{"type":"message_start","message":${messageText(message)}}`));
  }
}
