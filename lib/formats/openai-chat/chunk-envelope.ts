/**
 * The chat route's speed trick: every chunk of a stream shares its envelope (id, object,
 * created, model, `usage: null`), so the envelope is serialised once per stream and each chunk
 * adds only its `JSON.stringify`'d choice. The frame is byte-identical to `JSON.stringify` of
 * the whole chunk (property-tested); what it saves is in docs/benchmarks.md.
 */

/** The chunk fields that stay the same for a whole stream. */
export interface ChunkEnvelope {
  id: string;
  created: number;
  model: string;
  /** With `stream_options.include_usage`, every chunk carries `"usage": null` until the usage chunk. */
  includeUsage: boolean;
}

/** A writer of one stream's `data:` frames: `choice` in, `data: {…"choices":[choice]…}\n\n` out. */
export function chunkFrames({ id, created, model, includeUsage }: ChunkEnvelope): (choice: object) => string {
  const fields = JSON.stringify({ id, object: 'chat.completion.chunk', created, model });
  const head = `data: ${fields.slice(0, -1)},"choices":[`;
  const tail = includeUsage ? '],"usage":null}\n\n' : ']}\n\n';
  return (choice) => head + JSON.stringify(choice) + tail;
}

/** Stands for the string a templated frame varies in (see stringFrames). */
const MARK = JSON.stringify('\u0000mgw-value');

/**
 * Frames whose choice differs only in one string (a text delta, one call's argument fragments):
 * `choice` is serialised once with a marker where the string goes, each frame is the two halves
 * around `JSON.stringify(value)`, byte-identical to `frameOf` of the whole choice (property-tested).
 */
export function stringFrames(frameOf: (choice: object) => string, choice: (value: string) => object): (value: string) => string {
  const frame = frameOf(choice(JSON.parse(MARK) as string));
  const at = frame.lastIndexOf(MARK); // the choice comes last in the frame, after the envelope's strings
  const head = frame.slice(0, at);
  const tail = frame.slice(at + MARK.length);
  return (value) => head + JSON.stringify(value) + tail;
}
