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
