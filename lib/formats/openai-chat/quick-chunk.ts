/**
 * The chat stream's common chunks read without JSON.parse: most of a long stream is text deltas and
 * tool-call argument fragments, each a whole chunk whose only changing part is one string. A chunk
 * written exactly as OpenAI writes these two (no spaces, its fields in OpenAI's order, no usage
 * but `null`) is matched by one anchored expression and gives the same UpstreamChunk JSON.parse
 * would; any other chunk (usage, finish reason, names, errors, another layout) returns undefined
 * and is parsed. Property-tested against JSON.parse; what it saves is in docs/benchmarks.md.
 */
import { literalValue as value, STRING_BODY } from '../../wire/json-literal';
import type { UpstreamChunk } from './types';

const LIT = STRING_BODY;
const ID = String.raw`"[^"\\\u0000-\u001f]*"`;
const INT = String.raw`(?:0|[1-9]\d{0,15})`;
const CHUNK = new RegExp(
  String.raw`^\{"id":${ID},"object":"chat\.completion\.chunk","created":${INT},"model":${ID}(?:,"system_fingerprint":(?:${ID}|null))?` +
    String.raw`,"choices":\[\{"index":0,"delta":\{(?:"content":"${LIT}"|"tool_calls":\[\{"index":(${INT}),"function":\{"arguments":"${LIT}"\}\}\])\}` +
    String.raw`(?:,"logprobs":null)?,"finish_reason":null\}\](?:,"usage":null)?\}$`,
);

/** The chunk `data` is when it is a canonical text delta or argument fragment; undefined means "parse it". */
export function quickChunk(data: string): UpstreamChunk | undefined {
  const m = CHUNK.exec(data);
  if (!m) return undefined;
  if (m[1] !== undefined) {
    const content = value(m[1]);
    return content === undefined ? undefined : { choices: [{ index: 0, delta: { content }, finish_reason: null }] };
  }
  const args = value(m[3] as string);
  if (args === undefined) return undefined;
  return { choices: [{ index: 0, delta: { tool_calls: [{ index: Number(m[2]), function: { arguments: args } }] }, finish_reason: null }] };
}
