/**
 * An Anthropic stream's content deltas read without JSON.parse: most of an answer is
 * `content_block_delta` events whose only changing parts are the index and one string. One written
 * exactly as Anthropic writes a text, thinking or argument delta (no spaces, its field order) is
 * matched by one anchored expression and gives the object JSON.parse would (same fields, same
 * order); anything else returns undefined and is parsed. Property-tested against JSON.parse.
 */
import type { StreamEvent } from '../../messages/events';
import { literalValue, STRING_BODY } from '../../wire/json-literal';

const DELTA = new RegExp(
  String.raw`^\{"type":"content_block_delta","index":(0|[1-9]\d{0,8}),"delta":\{"type":"(text_delta","text|thinking_delta","thinking|input_json_delta","partial_json)":"${STRING_BODY}"\}\}$`,
);

/** The delta types read, each with the field its string goes in. */
const FIELDS: Readonly<Record<string, [type: string, field: string]>> = {
  'text_delta","text': ['text_delta', 'text'],
  'thinking_delta","thinking': ['thinking_delta', 'thinking'],
  'input_json_delta","partial_json': ['input_json_delta', 'partial_json'],
};

/** The event `data` is when it is a canonical text, thinking or argument delta; undefined means "parse it". */
export function quickDelta(data: string): StreamEvent | undefined {
  const m = DELTA.exec(data);
  if (!m) return undefined;
  const value = literalValue(m[3] as string);
  if (value === undefined) return undefined;
  const [type, field] = FIELDS[m[2] as string] as [string, string];
  return { type: 'content_block_delta', index: Number(m[1]), delta: { type, [field]: value } };
}
