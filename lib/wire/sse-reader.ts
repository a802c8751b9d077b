/** Reads server-sent events from an upstream body with eventsource-parser (no hand-rolled parsing). */
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

/**
 * Turns the chunks of a byte stream into the SSE messages each one completes, as one array per
 * chunk. Synchronous, so an adapter reads its body in one `for await` loop. Bytes after the last
 * blank line are an incomplete event, which the SSE standard discards: nothing is read at the end.
 */
export class SseBatchReader {
  private pending: EventSourceMessage[] = [];
  private readonly parser: EventSourceParser;
  /** Joins a character split across reads. */
  private readonly decoder = new StringDecoder('utf8');

  constructor() {
    this.parser = createParser({ onEvent: (message) => this.pending.push(message) });
  }

  /** The messages `chunk` completes (never an empty array), or undefined when it completes none. */
  read(chunk: Uint8Array | string): EventSourceMessage[] | undefined {
    this.parser.feed(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    if (this.pending.length === 0) return undefined;
    const batch = this.pending;
    this.pending = [];
    return batch;
  }
}
