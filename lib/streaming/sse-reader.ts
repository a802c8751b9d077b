/** Reads server-sent events from an upstream body with eventsource-parser (no hand-rolled parsing). */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

const STREAMING = Object.freeze({ stream: true });

/**
 * Yields the SSE messages completed by each chunk of a byte stream, as one array per chunk
 * (never empty): one async step per network read, however many events it carried.
 */
export async function* readSseBatches(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<EventSourceMessage[]> {
  let pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const decoder = new TextDecoder();
  for await (const chunk of chunks) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, STREAMING));
    if (pending.length > 0) {
      const batch = pending;
      pending = [];
      yield batch;
    }
  }
  parser.feed(decoder.decode());
  if (pending.length > 0) yield pending;
}
