/** Reads server-sent events from an upstream body with eventsource-parser (no hand-rolled parsing). */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** Yields each SSE message of a byte stream as soon as its frame is complete. */
export async function* readSse(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const decoder = new TextDecoder();
  for await (const chunk of chunks) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift() as EventSourceMessage;
  }
  parser.feed(decoder.decode());
  while (pending.length > 0) yield pending.shift() as EventSourceMessage;
}
