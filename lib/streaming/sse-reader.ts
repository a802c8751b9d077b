/** Reads server-sent events from an upstream body with eventsource-parser (no hand-rolled parsing). */
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { withRawChunk } from '../raw-text';

/**
 * Turns the chunks of a byte stream into the SSE messages each one completes, as one array per
 * chunk. Synchronous, so an adapter reads its body in one `for await` loop: an async generator
 * between body and adapter cost a promise and a resume per read.
 *
 * A batch is marked with its chunk (`rawChunk()`) when the chunk holds those messages and
 * nothing else: it starts where the previous chunk's last event ended, ends with a blank line,
 * and has no comment, `id`, `retry` or unknown field. Sending such a chunk as it came gives a
 * client exactly the events of the batch.
 *
 * Nothing is read at the end of the body: bytes after the last blank line are an incomplete
 * event, which the SSE standard discards, and a character cut at the end cannot complete one.
 */
export class SseBatchReader {
  private pending: EventSourceMessage[] = [];
  private clean = true;
  private readonly parser: EventSourceParser;
  // Node's own streaming decoder (a character split across reads is joined): 2 to 4 times
  // cheaper per byte than a streaming TextDecoder, measured on a 3 KB stream.
  private readonly decoder = new StringDecoder('utf8');
  /** Whether the bytes read so far end at the end of an event (nothing carried into the next chunk). */
  private atBoundary = true;

  constructor() {
    const unclean = (): void => {
      this.clean = false;
    };
    this.parser = createParser({
      onEvent: (message) => {
        if (message.id !== undefined) this.clean = false;
        this.pending.push(message);
      },
      onComment: unclean,
      onRetry: unclean,
      onError: unclean,
    });
  }

  /** The messages `chunk` completes (never an empty array), or undefined when it completes none. */
  read(chunk: Uint8Array | string): EventSourceMessage[] | undefined {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const fromBoundary = this.atBoundary;
    this.clean = true;
    this.parser.feed(text);
    this.atBoundary = text.endsWith('\n\n');
    if (this.pending.length === 0) return undefined;
    const batch = this.pending;
    this.pending = [];
    return fromBoundary && this.atBoundary && this.clean ? withRawChunk(batch, chunk) : batch;
  }

}
