/** Messages → Chat Completions: the request an OpenAI-format upstream gets. */
import { isBlock, type ContentBlock, type MessageParam, type ToolResultBlock } from '../../messages/content';
import type { MessagesRequest, Tool, ToolChoice } from '../../messages/request';
import { ownEntry } from '../../foundation/own';
import { partsOf, promptText } from './parts';
import { reasoningFieldOf } from '../../messages/gateway-thinking';
import { ANSWER_JOIN, cannotExpress, MESSAGES_FIELDS, objectAt, PROMPT_JOIN, stringAt, TOOL_CHOICES } from './tables';
import { shortToolName } from './tool-names';
import type { ChatMessage, ChatPart, ChatTextPart, ChatTool, ChatToolCall, ChatToolChoice } from './types';

/** Which field carries the output bound upstream. */
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

const isText = (part: ChatPart): part is ChatTextPart => part.type === 'text';

/** A prompt's parts as a string when they are all text (every server takes one), else as parts. */
const promptContent = (parts: ChatPart[]): string | ChatPart[] =>
  parts.every(isText) ? parts.map((p) => p.text).join(PROMPT_JOIN) : parts;

/** The tool message of a tool result; its images and PDFs go to `rest` (tool messages take only text). */
function toolMessage(block: ToolResultBlock, path: string, rest: ChatPart[]): ChatMessage {
  const id = stringAt(block.tool_use_id, `${path}.tool_use_id`);
  const content = block.content ?? '';
  if (typeof content === 'string') return { role: 'tool', tool_call_id: id, content };
  if (!Array.isArray(content)) throw cannotExpress(`${path}.content`, 'must be a string or an array of blocks');
  const texts: string[] = [];
  content.forEach((b, i) => {
    for (const part of partsOf(b, `${path}.content.${i}`)) {
      if (isText(part)) texts.push(part.text);
      else rest.push(part);
    }
  });
  return { role: 'tool', tool_call_id: id, content: texts.join(PROMPT_JOIN) };
}

/** A user turn: its tool results first, as tool messages (parallel calls' results together), then the rest as one user message. */
function userTurn(content: ContentBlock[], path: string, out: ChatMessage[]): void {
  const rest: ChatPart[] = [];
  content.forEach((block, i) => {
    if (isBlock(block, 'tool_result')) out.push(toolMessage(block, `${path}.${i}`, rest));
    else rest.push(...partsOf(block, `${path}.${i}`));
  });
  if (rest.length > 0) out.push({ role: 'user', content: promptContent(rest) });
}

/** An assistant turn: its text, its calls, and its reasoning, sent back only with calls (DeepSeek requires it there and refuses it elsewhere). */
function assistantTurn(content: ContentBlock[], path: string): ChatMessage {
  let text = '';
  let reasoning: string | undefined;
  let signature: unknown;
  const calls: ChatToolCall[] = [];
  content.forEach((block, i) => {
    const at = `${path}.${i}`;
    const type = stringAt(objectAt(block, at).type, `${at}.type`);
    if (isBlock(block, 'text')) text += (text === '' ? '' : ANSWER_JOIN) + stringAt(block.text, `${at}.text`);
    else if (isBlock(block, 'tool_use')) {
      const name = shortToolName(stringAt(block.name, `${at}.name`));
      calls.push({ id: stringAt(block.id, `${at}.id`), type: 'function', function: { name, arguments: JSON.stringify(block.input ?? {}) } });
    } else if (isBlock(block, 'thinking')) {
      reasoning = (reasoning ?? '') + stringAt(block.thinking, `${at}.thinking`);
      signature ??= block.signature;
    } else if (type !== 'redacted_thinking') { // encrypted reasoning only its own upstream can read
      throw cannotExpress(`${at}.type`, `an OpenAI-format upstream cannot take a "${type.slice(0, 64)}" block here`);
    }
  });
  const message: ChatMessage = { role: 'assistant', content: text };
  if (calls.length === 0) return message;
  message.tool_calls = calls;
  if (reasoning !== undefined) message[reasoningFieldOf(signature)] = reasoning;
  return message;
}

/** The chat messages of one turn, appended to `out`. */
function pushTurn(turn: MessageParam, path: string, out: ChatMessage[]): void {
  const content = turn.content;
  if (typeof content === 'string') out.push({ role: turn.role, content });
  else if (turn.role === 'assistant') out.push(assistantTurn(content, `${path}.content`));
  else if (turn.role === 'user') userTurn(content, `${path}.content`, out);
  else out.push({ role: 'system', content: promptText(content, `${path}.content`) }); // a system turn mid-conversation, in its place
}

function chatTool(tool: Tool, path: string): ChatTool {
  if (tool.input_schema === undefined || (tool.type !== undefined && tool.type !== 'custom')) {
    throw cannotExpress(`${path}.type`, `the server tool "${String(tool.type).slice(0, 64)}" runs on Anthropic upstreams only`);
  }
  const parameters = objectAt(tool.input_schema, `${path}.input_schema`);
  const fn: ChatTool['function'] = { name: shortToolName(stringAt(tool.name, `${path}.name`)), parameters };
  if (typeof tool.description === 'string') fn.description = tool.description;
  if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

function chatToolChoice(choice: ToolChoice, body: Record<string, unknown>): ChatToolChoice {
  objectAt(choice, 'tool_choice');
  if (choice.disable_parallel_tool_use === true) body.parallel_tool_calls = false;
  if (choice.type === 'tool') return { type: 'function', function: { name: shortToolName(stringAt((choice as { name?: unknown }).name, 'tool_choice.name')) } };
  const row = TOOL_CHOICES.find(([messages]) => messages === choice.type);
  if (!row) throw cannotExpress('tool_choice.type', `an OpenAI-format upstream has no tool choice "${String(choice.type).slice(0, 64)}"`);
  return row[1];
}

/** The structured output a Messages request asks for (`output_config.format`), as OpenAI's `response_format`; effort and the rest are hints. */
function responseFormat(config: unknown): Record<string, unknown> | undefined {
  const format = (config as { format?: { type?: unknown; schema?: unknown } } | null)?.format;
  if (format === undefined || format === null) return undefined;
  if (format.type !== 'json_schema') throw cannotExpress('output_config.format.type', 'an OpenAI-format upstream takes only "json_schema" formats');
  return { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } };
}

/**
 * The Chat Completions body for a Messages request. System text and a text-only prompt become
 * strings (their parts joined by a line break); streams always ask for the usage. A field or block
 * the target cannot express is refused here, naming its path, before any upstream call.
 */
export function toChatRequest(request: MessagesRequest, field: MaxTokensField, stream: boolean): Record<string, unknown> {
  for (const key in request) {
    const fate = ownEntry(MESSAGES_FIELDS, key);
    if (fate !== 'map' && fate !== 'drop') throw cannotExpress(key, fate ?? 'an OpenAI-format upstream has no such field');
  }
  const messages: ChatMessage[] = [];
  const system = request.system;
  if (system !== undefined) messages.push({ role: 'system', content: typeof system === 'string' ? system : promptText(system, 'system') });
  request.messages.forEach((turn, i) => pushTurn(turn, `messages.${i}`, messages));
  const body: Record<string, unknown> = { model: request.model, messages, [field]: request.max_tokens };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.stop_sequences !== undefined) body.stop = request.stop_sequences;
  if (typeof request.metadata?.user_id === 'string' && request.metadata.user_id !== '') body.user = request.metadata.user_id;
  if (request.tools !== undefined && request.tools.length > 0) body.tools = request.tools.map((t, i) => chatTool(objectAt(t, `tools.${i}`) as Tool, `tools.${i}`));
  if (request.tool_choice !== undefined) body.tool_choice = chatToolChoice(request.tool_choice, body);
  const format = request.output_config === undefined ? undefined : responseFormat(request.output_config);
  if (format) body.response_format = format;
  if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return body;
}
