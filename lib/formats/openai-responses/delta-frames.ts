/**
 * A block's delta events (`response.output_text.delta`, `.function_call_arguments.delta`) differ
 * only in their delta and `sequence_number`: the frame is serialised once with markers where those
 * go, each event is the pieces around `JSON.stringify(delta)` and the number, byte-identical to
 * serialising the whole event (property-tested; what it saves is in docs/benchmarks.md).
 */
import { frame } from '../../wire/sse-writer';

const VALUE = '\u0000mgw-delta';
const SEQ = '\u0000mgw-seq';
const VALUE_JSON = JSON.stringify(VALUE);
const SEQ_JSON = JSON.stringify(SEQ);

/** The frame of `{type, ...fields, [key]: value, sequence_number}` for any `value` and `seq`, fields and key as given here. */
export type DeltaFrame = (value: string, seq: number) => string;

/**
 * Frames of `type` with `fields` fixed and `key` (one of `fields`, in its place) varying, then the
 * sequence number, which comes last. `fields` must hold no marker (the gateway's ids and indexes).
 */
export function deltaFrames(type: string, fields: Readonly<Record<string, unknown>>, key: string): DeltaFrame {
  const text = frame({ type, ...fields, [key]: VALUE, sequence_number: SEQ });
  const at = text.indexOf(VALUE_JSON);
  const seqAt = text.lastIndexOf(SEQ_JSON);
  const head = text.slice(0, at);
  const middle = text.slice(at + VALUE_JSON.length, seqAt);
  const tail = text.slice(seqAt + SEQ_JSON.length);
  // A sequence number is a non-negative integer: String() writes it as JSON.stringify does.
  return (value, seq) => head + JSON.stringify(value) + middle + String(seq) + tail;
}
