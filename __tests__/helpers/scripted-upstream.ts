/**
 * A fake upstream that answers each upstream model name with the exact text a test gives it: a JSON
 * body, or SSE frames for a stream. Hostile answers (`1e400`, tool arguments that are not JSON, a
 * `finish_reason` of `constructor`) are written byte for byte, as no JSON.stringify would write them.
 */
import { startFake, type FakeServer } from './fake-server';

/** What one upstream model answers: `json` to a request without `stream`, `sse` (whole frames) to one with. */
export interface ScriptedAnswer {
  json?: string;
  sse?: string;
  /** An HTTP error instead, to a request with or without `stream`: this status, `body` (JSON text) as written. */
  error?: { status: number; body: string };
  /** Awaited before the answer's headers: an upstream silent before its first byte. */
  before?: () => Promise<void>;
}

export interface ScriptedUpstream extends FakeServer {
  /** Sets what `model` answers from now on. */
  answer(model: string, answer: ScriptedAnswer): void;
}

/** Starts the fake; a model with no answer set gets a 404, as a real upstream would. */
export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const answers = new Map<string, ScriptedAnswer>();
  const fake = await startFake(async (req, res) => {
    const answer = answers.get(String(req.body.model));
    await answer?.before?.();
    if (answer?.error) {
      res.writeHead(answer.error.status, { 'content-type': 'application/json' });
      return void res.end(answer.error.body);
    }
    const text = req.body.stream === true ? answer?.sse : answer?.json;
    if (text === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end('{"error":{"type":"not_found_error","message":"no such model"}}');
    }
    res.writeHead(200, { 'content-type': req.body.stream === true ? 'text/event-stream' : 'application/json' });
    res.end(text);
  });
  return Object.assign(fake, { answer: (model: string, a: ScriptedAnswer) => void answers.set(model, a) });
}

/** SSE frames of an Anthropic-format stream: `[event, data text]` pairs, the data written as given. */
export const anthropicFrames = (frames: ReadonlyArray<readonly [string, string]>): string =>
  frames.map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`).join('');

/** SSE frames of a Responses stream: each event's data as given, without `event:` lines (the type is the data's). */
export const responsesFrames = (events: readonly string[]): string => events.map((data) => `data: ${data}\n\n`).join('');

/** SSE frames of an OpenAI-format stream: each chunk's data as given, then `[DONE]`. */
export const openaiFrames = (chunks: readonly string[]): string => `${chunks.map((c) => `data: ${c}\n\n`).join('')}data: [DONE]\n\n`;

/** An OpenAI chunk whose choice carries `delta` (JSON text) and `finish` (JSON text: a string or null). */
export const openaiChunk = (delta: string, finish = 'null'): string =>
  `{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"x","choices":[{"index":0,"delta":${delta},"finish_reason":${finish}}]}`;

/** The OpenAI usage chunk, its usage object written as given. */
export const openaiUsageChunk = (usage: string): string => `{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"x","choices":[],"usage":${usage}}`;

/** An OpenAI `chat.completion` with `message` and `finish` and `usage` written as given. */
export const openaiCompletion = (message: string, finish: string, usage: string): string =>
  `{"id":"chatcmpl-s","object":"chat.completion","created":1,"model":"x","choices":[{"index":0,"message":${message},"finish_reason":${finish}}],"usage":${usage}}`;

/** An Anthropic message with `content` (JSON text), `stop` (JSON text) and `usage` written as given. */
export const anthropicMessage = (content: string, stop: string, usage: string): string =>
  `{"id":"msg_s","type":"message","role":"assistant","model":"x","content":${content},"stop_reason":${stop},"stop_sequence":null,"usage":${usage}}`;

/** A whole Anthropic stream of `blocks` (each `[content_block JSON text, its deltas' JSON texts]`), `stop` and the final `usage` (JSON texts). */
export function anthropicStream(blocks: ReadonlyArray<readonly [string, readonly string[]]>, stop: string, startUsage: string, finalUsage: string): string {
  const frames: Array<[string, string]> = [['message_start', `{"type":"message_start","message":{"id":"msg_s","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"stop_sequence":null,"usage":${startUsage}}}`]];
  blocks.forEach(([block, deltas], index) => {
    frames.push(['content_block_start', `{"type":"content_block_start","index":${index},"content_block":${block}}`]);
    for (const delta of deltas) frames.push(['content_block_delta', `{"type":"content_block_delta","index":${index},"delta":${delta}}`]);
    frames.push(['content_block_stop', `{"type":"content_block_stop","index":${index}}`]);
  });
  frames.push(['message_delta', `{"type":"message_delta","delta":{"stop_reason":${stop},"stop_sequence":null},"usage":${finalUsage}}`], ['message_stop', '{"type":"message_stop"}']);
  return anthropicFrames(frames);
}
