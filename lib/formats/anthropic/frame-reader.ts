/**
 * Reads an Anthropic SSE body for the forwarding stream (frames.ts) without a general SSE parser while the upstream writes
 * every frame as Anthropic does (`event: NAME\ndata: JSON\n\n`): content frames come out as ForwardedFrames holding the
 * upstream's own text (in `runs`, one per stretch of consecutive content frames), every other frame as its event name and
 * data to parse. At the first frame written any other way (a comment, an id, CRLF, data on two lines) the rest of the body
 * goes through eventsource-parser (lib/wire/sse-reader.ts), the SSE standard's reading, as every other stream does.
 */
import { StringDecoder } from 'node:string_decoder';
import { SseBatchReader } from '../../wire/sse-reader';
import { ForwardedFrame } from './frames';

/** A frame to parse: its event name and data, as eventsource-parser gives them. */
export interface RawEvent { event?: string; data: string }

const EVENT = 'event: ';
const DATA = 'data: ';
/** The content events and the start their data must have (as JSON.stringify writes it) to be forwarded unread. */
const CONTENT: ReadonlyMap<string, string> = new Map(['content_block_start', 'content_block_delta', 'content_block_stop'].map((t) => [t, `{"type":"${t}"`]));
/**
 * The same test for a whole stretch of content frames in one match (sticky, from `lastIndex`): each frame's name is a
 * content event's, its data begins with that type and is one line. One regular expression per stretch costs far
 * less than string tests per frame (docs/benchmarks.md).
 */
const RUN = /(?:event: (content_block_(?:start|delta|stop))\ndata: \{"type":"\1"[^\n]*\n\n)+/y;

/** One body's reader; `runs`: consecutive content frames as one ForwardedFrame (for a caller that passes them on unread). */
export class AnthropicFrameReader {
  private rest = '';
  /** Set at the first frame not written canonically: it and the rest of the body are read by the standard's rules. */
  private general: SseBatchReader | undefined;
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly runs: boolean) {}

  /** The items `chunk` completes, in order (never an empty array), or undefined when it completes none. */
  read(chunk: Uint8Array | string): Array<ForwardedFrame | RawEvent> | undefined {
    const decoded = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (this.general) return this.general.read(decoded);
    const text = this.rest === '' ? decoded : this.rest + decoded;
    const items: Array<ForwardedFrame | RawEvent> = [];
    let pos = 0;
    let run = -1; // where the current stretch of content frames began
    const flush = (end: number): void => {
      if (run >= 0) items.push(new ForwardedFrame('content_block_delta', text.slice(run, end)));
      run = -1;
    };
    const canonical = text.indexOf('\r') < 0;
    while (canonical && pos < text.length) {
      if (this.runs) {
        RUN.lastIndex = pos;
        if (RUN.test(text)) {
          if (run < 0) run = pos;
          pos = RUN.lastIndex;
          continue;
        }
      }
      if (!text.startsWith(EVENT, pos)) {
        if (text.length - pos < EVENT.length && EVENT.startsWith(text.slice(pos))) break; // the line is still coming
        return this.fallBack(text, pos, items, flush);
      }
      const nameEnd = text.indexOf('\n', pos + EVENT.length);
      if (nameEnd < 0 || text.length - nameEnd - 1 < DATA.length) break;
      if (!text.startsWith(DATA, nameEnd + 1)) return this.fallBack(text, pos, items, flush);
      const dataEnd = text.indexOf('\n', nameEnd + 1 + DATA.length);
      if (dataEnd < 0 || dataEnd + 1 >= text.length) break;
      if (text.charCodeAt(dataEnd + 1) !== 10) return this.fallBack(text, pos, items, flush); // another line in the frame
      const name = text.slice(pos + EVENT.length, nameEnd);
      const head = CONTENT.get(name);
      const next = dataEnd + 2;
      if (head !== undefined && text.startsWith(head, nameEnd + 1 + DATA.length)) {
        if (!this.runs) items.push(new ForwardedFrame(name, text.slice(pos, next)));
        else if (run < 0) run = pos;
      } else {
        flush(pos);
        items.push({ event: name, data: text.slice(nameEnd + 1 + DATA.length, dataEnd) });
      }
      pos = next;
    }
    if (!canonical) return this.fallBack(text, pos, items, flush);
    flush(pos);
    this.rest = text.slice(pos);
    return items.length > 0 ? items : undefined;
  }

  /** From `pos` on (a frame's start), the body is read by eventsource-parser. */
  private fallBack(text: string, pos: number, items: Array<ForwardedFrame | RawEvent>, flush: (end: number) => void): Array<ForwardedFrame | RawEvent> | undefined {
    flush(pos);
    this.rest = '';
    this.general = new SseBatchReader();
    items.push(...(this.general.read(text.slice(pos)) ?? []));
    return items.length > 0 ? items : undefined;
  }
}
