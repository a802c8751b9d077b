/**
 * Stream conformance, both directions, over the gateway: every recorded OpenAI-format chunk sequence
 * becomes an Anthropic stream that keeps the grammar (one message_start, deltas on an open block of
 * their type, blocks stopped before the next, tool_use when tools were called, a cumulative
 * message_delta then message_stop) and that @anthropic-ai/sdk accumulates into the expected Message;
 * every recorded Anthropic sequence becomes a chat stream the openai SDK accumulates into the
 * expected completion; and every recorded sequence of either format becomes a Responses stream that
 * keeps the Responses grammar and that the openai SDK's responses.stream() accumulates into the
 * expected response. Each upstream writes its stream frame by frame, in one write, and in 5-byte pieces.
 * (Recorded Responses streams to Messages and chat clients need a Responses upstream adapter: not yet.)
 */
import Anthropic from '@anthropic-ai/sdk';
import type http from 'node:http';
import OpenAI from 'openai';
import { anthropicAdapter, openaiChatAdapter, type ModelEntry } from '../../lib';
import { ANTHROPIC_SEQUENCES } from '../conformance/anthropic-events';
import { OPENAI_SEQUENCES, type ChunkSequence } from '../conformance/openai-chunks';
import { startFake, type FakeServer } from '../helpers/fake-server';
import { addCaller, startGateway, type RunningGateway } from '../helpers/gateway';
import { responsesViolations } from '../helpers/responses-grammar';
import { chatViolations, messagesViolations, parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
const MODES = ['frames', 'one-write', 'bytes'] as const;

/** Writes an SSE body as the mode says: a write per frame, all at once, or in 5-byte pieces. */
async function writeBody(res: http.ServerResponse, frames: string[], mode: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const body = frames.join('');
  if (mode === 'one-write') return void res.end(body);
  const parts = mode === 'frames' ? frames : Array.from({ length: Math.ceil(body.length / 5) }, (_, i) => body.slice(i * 5, i * 5 + 5));
  for (const part of parts) {
    res.write(part);
    await new Promise((r) => setImmediate(r));
  }
  res.end();
}

/** Replays the sequence the upstream model names (`seq-<n>-<mode>`). */
const replay = (frames: (n: number) => string[]) => startFake(async (req, res) => {
  const [, n, mode] = /^seq-(\d+)-(.+)$/.exec(String(req.body.model)) ?? [];
  await writeBody(res, frames(Number(n)), String(mode));
});

let openaiUp: FakeServer;
let anthropicUp: FakeServer;
let gw: RunningGateway;
let key: string;

beforeAll(async () => {
  openaiUp = await replay((n) => [...(OPENAI_SEQUENCES[n] as ChunkSequence).chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n']);
  anthropicUp = await replay((n) => (ANTHROPIC_SEQUENCES[n]?.events ?? []).map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`));
  const openai = openaiChatAdapter({ baseURL: openaiUp.url });
  const anthropic = anthropicAdapter({ baseURL: anthropicUp.url });
  const models: ModelEntry[] = [];
  for (const mode of MODES) {
    OPENAI_SEQUENCES.forEach((_, n) => models.push({ id: `o-${n}-${mode}`, upstreamModel: `seq-${n}-${mode}`, capability: 'llm', upstream: openai, agentReady: true, pricing: { input: 1, output: 1 } }));
    ANTHROPIC_SEQUENCES.forEach((_, n) => models.push({ id: `a-${n}-${mode}`, upstreamModel: `seq-${n}-${mode}`, capability: 'llm', upstream: anthropic, agentReady: true, pricing: { input: 1, output: 1 } }));
  }
  gw = await startGateway({ models });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([openaiUp.close(), anthropicUp.close()]);
});

const toolsOf = (names: string[]) => names.map((name) => ({ name, input_schema: { type: 'object' as const } }));
const chatToolsOf = (names: string[]) => names.map((name) => ({ type: 'function' as const, function: { name, parameters: { type: 'object' } } }));

describe.each(OPENAI_SEQUENCES.map((s, n) => [s.name, s, n] as const))('OpenAI chunks → Messages stream: %s', (_name, seq, n) => {
  it.each(MODES)('keeps the grammar when the upstream writes %s', async (mode) => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: `o-${n}-${mode}`, max_tokens: 256, stream: true, tools: toolsOf(seq.tools), messages: [{ role: 'user', content: 'Go' }] }),
    });
    expect(res.status).toBe(200);
    const frames = parseFrames(await res.text());
    expect(messagesViolations(frames)).toEqual([]);
    expect(frames.filter((f) => f.event === 'message_start')).toHaveLength(1);
    const last = frames.filter((f) => f.event === 'message_delta').at(-1)?.data as Json;
    expect(last).toMatchObject({ delta: { stop_reason: seq.expected.stop_reason }, usage: { ...seq.expected.usage, cache_creation_input_tokens: 0 } });
  });

  it('@anthropic-ai/sdk finalMessage() yields the expected message, tool inputs parsed', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
    const message = await client.messages.stream({ model: `o-${n}-frames`, max_tokens: 256, tools: toolsOf(seq.tools), messages: [{ role: 'user', content: 'Go' }] }).finalMessage();
    expect(message.content).toEqual(seq.expected.content);
    expect(message).toMatchObject({ model: `o-${n}-frames`, stop_reason: seq.expected.stop_reason, usage: seq.expected.usage });
    // The upstream got the tools by names it takes (at most 64 characters) and was asked for the usage.
    const sent = openaiUp.received.at(-1)?.body as Json;
    expect(sent).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    for (const tool of (sent.tools ?? []) as Json[]) expect(((tool.function as Json).name as string).length).toBeLessThanOrEqual(64);
  });

  it('the openai SDK reads the same stream through /v1/chat/completions: calls by index, one finish reason', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: `o-${n}-frames`, stream: true, stream_options: { include_usage: true }, tools: chatToolsOf(seq.tools), messages: [{ role: 'user', content: 'Go' }] }),
    });
    expect(chatViolations(parseFrames(await res.text()))).toEqual([]);
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const final = await client.chat.completions.stream({ model: `o-${n}-frames`, tools: chatToolsOf(seq.tools), messages: [{ role: 'user', content: 'Go' }] }).finalChatCompletion();
    const calls = seq.expected.content.filter((b) => b.type === 'tool_use');
    expect((final.choices[0]?.message.tool_calls ?? []).map((c) => (c.type === 'function' ? { id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) as unknown } : c)))
      .toEqual(calls.map((b) => ({ id: b.id, name: b.name, input: b.input })));
    expect(final.choices[0]?.finish_reason).toBe(calls.length > 0 ? 'tool_calls' : seq.expected.stop_reason === 'max_tokens' ? 'length' : 'stop');
  });
});

describe.each(ANTHROPIC_SEQUENCES.map((s, n) => [s.name, s, n] as const))('Anthropic events → chat stream: %s', (_name, seq, n) => {
  const body = (model: string) => ({ model, stream: true, stream_options: { include_usage: true }, tools: chatToolsOf(['get_weather', 'get_time', 'list_files']), messages: [{ role: 'user' as const, content: 'Go' }] });

  it.each(MODES)('keeps the chunk grammar when the upstream writes %s', async (mode) => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body(`a-${n}-${mode}`)),
    });
    expect(res.status).toBe(200);
    const frames = parseFrames(await res.text());
    expect(chatViolations(frames)).toEqual([]);
    const chunks = frames.map((f) => f.data).filter((d): d is Json => typeof d === 'object' && d !== null);
    const deltas = chunks.map((c) => ((c.choices as Json[])[0]?.delta ?? {}) as Json);
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe(seq.expected.reasoning);
    const { prompt_tokens, completion_tokens, cached_tokens } = seq.expected.usage;
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens, prompt_tokens_details: { cached_tokens } });
  });

  it('the openai SDK finalChatCompletion() yields the expected completion, tool arguments parsed', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const { stream: _s, ...params } = body(`a-${n}-frames`);
    const final = await client.chat.completions.stream(params).finalChatCompletion();
    const [choice] = final.choices;
    expect(choice?.message.content || null).toBe(seq.expected.content);
    expect((choice?.message.tool_calls ?? []).map((c) => (c.type === 'function' ? { id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) as unknown } : c))).toEqual(seq.expected.tool_calls);
    expect(choice?.finish_reason).toBe(seq.expected.finish_reason);
    expect(final.usage).toMatchObject({ prompt_tokens: seq.expected.usage.prompt_tokens, completion_tokens: seq.expected.usage.completion_tokens });
  });
});

/** A Responses client's view of an answer: its text, its calls (arguments parsed), its reasoning summary, status and usage. */
interface ResponsesView {
  text: string;
  calls: Array<{ call_id: string; name: string; input: unknown }>;
  reasoning: string;
  status: string;
  usage: { input_tokens: number; output_tokens: number; cached_tokens: number };
}

function viewOf(response: Json): ResponsesView {
  const output = response.output as Json[];
  const usage = response.usage as { input_tokens: number; output_tokens: number; input_tokens_details: { cached_tokens: number } };
  return {
    text: output.filter((i) => i.type === 'message').flatMap((i) => (i.content as Json[]).map((c) => String(c.text))).join(''),
    calls: output.filter((i) => i.type === 'function_call').map((i) => ({ call_id: String(i.call_id), name: String(i.name), input: JSON.parse(String(i.arguments)) as unknown })),
    reasoning: output.filter((i) => i.type === 'reasoning').flatMap((i) => (i.summary as Json[]).map((s) => String(s.text))).join(''),
    status: String(response.status),
    usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cached_tokens: usage.input_tokens_details.cached_tokens },
  };
}

const responsesToolsOf = (names: string[]) => names.map((name) => ({ type: 'function' as const, name, strict: false, parameters: { type: 'object' } }));

/** Streams a Responses request; the frames keep the Responses grammar; the view of its final response. */
async function responsesStream(model: string, tools: string[]): Promise<ResponsesView> {
  const res = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, input: 'Go', tools: responsesToolsOf(tools), reasoning: { summary: 'auto' } }),
  });
  expect(res.status).toBe(200);
  const frames = parseFrames(await res.text());
  expect(responsesViolations(frames)).toEqual([]);
  return viewOf((frames.at(-1)?.data as Json).response as Json);
}

/** The same through the openai SDK's accumulator. */
async function sdkResponse(model: string, tools: string[]): Promise<ResponsesView> {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const final = await client.responses.stream({ model, input: 'Go', tools: responsesToolsOf(tools), reasoning: { summary: 'auto' } }).finalResponse();
  return viewOf(final as unknown as Json);
}

describe.each(OPENAI_SEQUENCES.map((s, n) => [s.name, s, n] as const))('OpenAI chunks → Responses stream: %s', (_name, seq, n) => {
  const blocks = seq.expected.content;
  const expected: ResponsesView = {
    text: blocks.filter((b) => b.type === 'text').map((b) => String(b.text)).join(''),
    calls: blocks.filter((b) => b.type === 'tool_use').map((b) => ({ call_id: String(b.id), name: String(b.name), input: b.input })),
    reasoning: blocks.filter((b) => b.type === 'thinking').map((b) => String(b.thinking)).join(''),
    status: seq.expected.stop_reason === 'max_tokens' ? 'incomplete' : 'completed',
    usage: { input_tokens: seq.expected.usage.input_tokens + seq.expected.usage.cache_read_input_tokens, output_tokens: seq.expected.usage.output_tokens, cached_tokens: seq.expected.usage.cache_read_input_tokens },
  };

  it.each(MODES)('keeps the Responses grammar when the upstream writes %s, and ends with the expected response', async (mode) => {
    expect(await responsesStream(`o-${n}-${mode}`, seq.tools)).toEqual(expected);
  });

  it('the openai SDK responses.stream().finalResponse() yields the expected response', async () => {
    expect(await sdkResponse(`o-${n}-frames`, seq.tools)).toEqual(expected);
  });
});

describe.each(ANTHROPIC_SEQUENCES.map((s, n) => [s.name, s, n] as const))('Anthropic events → Responses stream: %s', (_name, seq, n) => {
  const tools = ['get_weather', 'get_time', 'list_files'];
  const expected: ResponsesView = {
    text: seq.expected.content ?? '',
    calls: seq.expected.tool_calls.map((c) => ({ call_id: c.id, name: c.name, input: c.input })),
    reasoning: seq.expected.reasoning,
    status: seq.expected.finish_reason === 'length' ? 'incomplete' : 'completed',
    usage: { input_tokens: seq.expected.usage.prompt_tokens, output_tokens: seq.expected.usage.completion_tokens, cached_tokens: seq.expected.usage.cached_tokens },
  };

  it.each(MODES)('keeps the Responses grammar when the upstream writes %s, and ends with the expected response', async (mode) => {
    expect(await responsesStream(`a-${n}-${mode}`, tools)).toEqual(expected);
  });

  it('the openai SDK responses.stream().finalResponse() yields the expected response', async () => {
    expect(await sdkResponse(`a-${n}-frames`, tools)).toEqual(expected);
  });
});
