/**
 * Messages → Responses: the body a Responses upstream gets for a Messages request (the Messages
 * and chat routes' requests, through the content model). A field or block the target cannot
 * express is refused naming its path, before any call; reasoning another upstream made is dropped
 * (and listed), never sent.
 */
import { isBlock, type ContentBlock, type DocumentBlock, type ImageBlock, type MessageParam } from '../../messages/content';
import type { MessagesRequest, Tool, ToolChoice } from '../../messages/request';
import { ownEntry } from '../../foundation/own';
import { refused } from './errors';
import { callIdOf } from './ids';
import { reasoningInputOf } from './upstream-reasoning';

type Item = Record<string, unknown>;

/** What becomes of each top-level Messages field: `map`, `drop` (a hint with no counterpart), or why it is refused. */
const FIELDS: Readonly<Record<string, 'map' | 'drop' | string>> = Object.freeze({
  model: 'map', max_tokens: 'map', messages: 'map', system: 'map', temperature: 'map', top_p: 'map', stream: 'map',
  metadata: 'map', tools: 'map', tool_choice: 'map', output_config: 'map', thinking: 'map',
  context_management: 'drop', cache_control: 'drop', service_tier: 'drop',
  top_k: 'a Responses upstream has no top_k', stop_sequences: 'a Responses upstream has no stop sequences',
});

/** Thinking budgets → reasoning efforts (the reverse of the Responses route's table, rounded down). */
function effortOf(budget: number): string {
  return budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}

const textOfSystem = (system: MessagesRequest['system'], path: string): string => {
  if (typeof system === 'string') return system;
  return (system ?? []).map((block, i) => {
    if (!isBlock(block, 'text')) throw refused(`${path}.${i}.type`, 'a system prompt holds text only');
    return block.text;
  }).join('\n');
};

function imagePart(block: ImageBlock, path: string): Item {
  const source = block.source;
  if (source.type === 'base64') return { type: 'input_image', image_url: `data:${source.media_type};base64,${source.data}`, detail: 'auto' };
  if (source.type === 'url') return { type: 'input_image', image_url: source.url, detail: 'auto' };
  throw refused(`${path}.source.type`, 'a Responses upstream takes images as base64 or URL');
}

function documentPart(block: DocumentBlock, path: string): Item {
  const source = block.source;
  const name = typeof block.title === 'string' && block.title !== '' ? { filename: block.title } : { filename: 'document.pdf' };
  if (source.type === 'base64') return { type: 'input_file', file_data: `data:${source.media_type};base64,${source.data}`, ...name };
  if (source.type === 'url') return { type: 'input_file', file_url: source.url };
  if (source.type === 'text') return { type: 'input_text', text: source.data };
  throw refused(`${path}.source.type`, `a Responses upstream cannot take a "${String(source.type).slice(0, 64)}" document`);
}

/** The input part of a user's block (text, image, document). */
function userPart(block: ContentBlock, path: string): Item | undefined {
  if (isBlock(block, 'text')) return block.text === '' ? undefined : { type: 'input_text', text: block.text };
  if (isBlock(block, 'image')) return imagePart(block, path);
  if (isBlock(block, 'document')) return documentPart(block, path);
  throw refused(`${path}.type`, `a Responses upstream cannot take a "${String(block.type).slice(0, 64)}" block here`);
}

/** A tool result as a function_call_output: text as a string, images and files as parts. */
function toolOutput(block: ContentBlock & { tool_use_id?: unknown; content?: unknown }, path: string): Item {
  if (typeof block.tool_use_id !== 'string') throw refused(`${path}.tool_use_id`, 'must be a string');
  const content = block.content ?? '';
  let output: string | Item[];
  if (typeof content === 'string') output = content;
  else if (!Array.isArray(content)) throw refused(`${path}.content`, 'must be a string or an array of blocks');
  else {
    const parts = (content as ContentBlock[]).map((b, i) => userPart(b, `${path}.content.${i}`)).filter((p): p is Item => p !== undefined);
    output = parts.every((p) => p.type === 'input_text') ? parts.map((p) => p.text as string).join('\n') : parts;
  }
  return { type: 'function_call_output', call_id: callIdOf(block.tool_use_id), output };
}

/** A user turn: its parts as one message, its tool results as outputs, in their order. */
function userItems(content: ContentBlock[], path: string, out: Item[]): void {
  let parts: Item[] = [];
  const flush = (): void => {
    if (parts.length > 0) out.push({ type: 'message', role: 'user', content: parts });
    parts = [];
  };
  content.forEach((block, i) => {
    if (isBlock(block, 'tool_result')) {
      flush();
      out.push(toolOutput(block, `${path}.${i}`));
    } else {
      const part = userPart(block, `${path}.${i}`);
      if (part) parts.push(part);
    }
  });
  flush();
}

/** An assistant turn: text as output messages, calls as function calls, the upstream's own reasoning as reasoning items. */
function assistantItems(content: ContentBlock[], path: string, origin: string, out: Item[], dropped: string[]): void {
  content.forEach((block, i) => {
    const at = `${path}.${i}`;
    if (isBlock(block, 'text')) {
      if (block.text !== '') out.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: block.text }] });
    } else if (isBlock(block, 'tool_use')) {
      out.push({ type: 'function_call', call_id: callIdOf(block.id), name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    } else if (isBlock(block, 'thinking') || isBlock(block, 'redacted_thinking')) {
      const item = reasoningInputOf(block, origin);
      if (item) out.push(item);
      else dropped.push(`${at} (reasoning another upstream made)`);
    } else {
      throw refused(`${at}.type`, `a Responses upstream cannot take a "${String(block.type).slice(0, 64)}" block here`);
    }
  });
}

function pushTurn(turn: MessageParam, path: string, origin: string, out: Item[], dropped: string[]): void {
  const content = turn.content;
  if (typeof content === 'string') out.push({ type: 'message', role: turn.role === 'system' ? 'developer' : turn.role, content });
  else if (turn.role === 'assistant') assistantItems(content, `${path}.content`, origin, out, dropped);
  else if (turn.role === 'user') userItems(content, `${path}.content`, out);
  else out.push({ type: 'message', role: 'developer', content: textOfSystem(content as MessagesRequest['system'], `${path}.content`) });
}

function functionTool(tool: Tool, path: string): Item {
  if (tool.input_schema === undefined || (tool.type !== undefined && tool.type !== 'custom')) {
    throw refused(`${path}.type`, `the server tool "${String(tool.type).slice(0, 64)}" runs on Anthropic upstreams only`);
  }
  return {
    type: 'function', name: tool.name, parameters: tool.input_schema, strict: typeof tool.strict === 'boolean' ? tool.strict : false,
    ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
  };
}

function toolChoiceOf(choice: ToolChoice, body: Item): unknown {
  if (choice.disable_parallel_tool_use === true) body.parallel_tool_calls = false;
  if (choice.type === 'tool') return { type: 'function', name: choice.name };
  if (choice.type === 'any') return 'required';
  if (choice.type === 'auto' || choice.type === 'none') return choice.type;
  throw refused('tool_choice.type', `a Responses upstream has no tool choice "${String(choice.type).slice(0, 64)}"`);
}

/**
 * The Responses body for a Messages request, sent to the upstream `origin` (the identity its
 * reasoning is sealed with): never stored upstream (`store: false`; the gateway keeps state),
 * the system prompt as `instructions`, turns as items, thinking as a reasoning effort with
 * summaries and the encrypted reasoning asked back so a later turn can replay it. `dropped`
 * lists the reasoning left out (another upstream's).
 */
export function toResponsesRequest(request: MessagesRequest, origin: string, stream: boolean, dropped: string[]): Item {
  for (const key in request) {
    const fate = ownEntry(FIELDS, key);
    if (fate !== 'map' && fate !== 'drop') throw refused(key, fate ?? 'a Responses upstream has no such field');
  }
  const input: Item[] = [];
  request.messages.forEach((turn, i) => pushTurn(turn, `messages.${i}`, origin, input, dropped));
  const body: Item = { model: request.model, input, max_output_tokens: request.max_tokens, store: false };
  if (request.system !== undefined) body.instructions = textOfSystem(request.system, 'system');
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (typeof request.metadata?.user_id === 'string' && request.metadata.user_id !== '') body.safety_identifier = request.metadata.user_id;
  if (request.tools !== undefined && request.tools.length > 0) body.tools = request.tools.map((t, i) => functionTool(t, `tools.${i}`));
  if (request.tool_choice !== undefined) body.tool_choice = toolChoiceOf(request.tool_choice, body);
  const format = (request.output_config as { format?: { type?: unknown; schema?: unknown } } | undefined)?.format;
  if (format !== undefined && format !== null) {
    if (format.type !== 'json_schema') throw refused('output_config.format.type', 'a Responses upstream takes only "json_schema" formats');
    body.text = { format: { type: 'json_schema', name: 'output', schema: format.schema, strict: false } };
  }
  const thinking = request.thinking;
  const thinks = thinking !== undefined && thinking.type !== 'disabled';
  const budget = (thinking as { budget_tokens?: unknown } | undefined)?.budget_tokens;
  if (thinks) body.reasoning = { ...(typeof budget === 'number' ? { effort: effortOf(budget) } : {}), summary: 'auto' };
  if (thinks || input.some((item) => item.type === 'reasoning')) body.include = ['reasoning.encrypted_content'];
  if (stream) body.stream = true;
  return body;
}
