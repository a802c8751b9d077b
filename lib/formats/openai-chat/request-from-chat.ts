/** Chat Completions → Messages: the chat route's request, as the Messages body every adapter takes. */
import type { ContentBlock, MessageParam, TextBlock, ToolResultBlock, ToolUseBlock } from '../../messages/content';
import type { CustomTool, MessagesRequest, ToolChoice } from '../../messages/request';
import { blockOf } from './parts';
import { gatewaySignature, type ReasoningField } from '../../messages/gateway-thinking';
import { cannotExpress, PROMPT_JOIN, SYSTEM_MESSAGES_JOIN, TOOL_CHOICES } from './tables';
import type { ChatMessage, ChatPart, ChatRequest, ChatTool } from './types';

/** A Messages body whose output bound validate() may still default (`Omit` would lose the known fields to the index signature). */
export type ChatAsMessages = { [K in keyof MessagesRequest as K extends 'max_tokens' ? never : K]: MessagesRequest[K] } & { max_tokens?: number };

type Content = ChatMessage['content'];

const textOfParts = (content: Content): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join(PROMPT_JOIN);

/** A user turn's blocks: text, images, PDFs. */
const userBlocks = (content: Content, path: string): ContentBlock[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []).map((part, j) => blockOf(part, `${path}.${j}`));

/** The text blocks of an assistant's parts (a refusal is its text). */
const answerBlocks = (parts: ChatPart[]): TextBlock[] =>
  parts.map((p) => ({ type: 'text', text: p.type === 'refusal' ? p.refusal : (p as { text: string }).text }));

function toolUse(call: NonNullable<ChatMessage['tool_calls']>[number], path: string): ToolUseBlock {
  let input: unknown = {};
  try {
    if (call.function.arguments !== '') input = JSON.parse(call.function.arguments);
  } catch {
    input = undefined;
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw cannotExpress(`${path}.function.arguments`, 'must be a JSON object');
  return { type: 'tool_use', id: call.id, name: call.function.name, input };
}

/** An assistant message: its reasoning (as thinking the gateway signs), its text, its calls; a plain one keeps its content as sent. */
function assistantTurn(m: ChatMessage, path: string): MessageParam {
  const field: ReasoningField | undefined = typeof m.reasoning_content === 'string' ? 'reasoning_content' : typeof m.reasoning === 'string' ? 'reasoning' : undefined;
  const calls = m.tool_calls ?? [];
  const content = m.content ?? m.refusal ?? null;
  if (field === undefined && calls.length === 0) return { role: 'assistant', content: typeof content === 'string' ? content : answerBlocks(content ?? []) };
  const blocks: ContentBlock[] = [];
  if (field !== undefined) blocks.push({ type: 'thinking', thinking: m[field] as string, signature: gatewaySignature(field) });
  if (typeof content === 'string') {
    if (content !== '') blocks.push({ type: 'text', text: content });
  } else blocks.push(...answerBlocks(content ?? []));
  calls.forEach((call, j) => blocks.push(toolUse(call, `${path}.tool_calls.${j}`)));
  return { role: 'assistant', content: blocks };
}

function tool(t: ChatTool, path: string): CustomTool {
  const parameters = t.function.parameters ?? { type: 'object', properties: {} };
  if (parameters.type !== 'object') throw cannotExpress(`${path}.function.parameters.type`, 'the Messages format takes only "object" parameters');
  const out: CustomTool = { name: t.function.name, input_schema: parameters as CustomTool['input_schema'] };
  if (t.function.description !== undefined) out.description = t.function.description;
  if (typeof t.function.strict === 'boolean') out.strict = t.function.strict;
  return out;
}

function toolChoice(chat: ChatRequest): ToolChoice | undefined {
  const choice = chat.tool_choice;
  let out: ToolChoice | undefined;
  if (typeof choice === 'string') {
    const row = TOOL_CHOICES.find(([, openai]) => openai === choice);
    if (!row) throw cannotExpress('tool_choice', `the Messages format has no tool choice "${choice.slice(0, 64)}"`);
    out = { type: row[0] };
  } else if (choice !== undefined) {
    if (choice.type !== 'function') throw cannotExpress('tool_choice.type', `the Messages format has no tool choice "${String(choice.type).slice(0, 64)}"`);
    out = { type: 'tool', name: choice.function.name };
  }
  if (chat.parallel_tool_calls === false) out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

function outputConfig(format: NonNullable<ChatRequest['response_format']>): MessagesRequest['output_config'] {
  if (format.type === 'text') return undefined;
  if (format.type !== 'json_schema' || !format.json_schema?.schema) {
    throw cannotExpress('response_format.type', 'the Messages format takes structured output as "json_schema" with a schema');
  }
  return { format: { type: 'json_schema', schema: format.json_schema.schema } };
}

/**
 * The Messages request for a chat request: system and developer messages become `system`; tool
 * messages become tool_result blocks at the start of one user turn (the results of parallel calls
 * together, the next user message's content after them); an assistant's reasoning becomes a
 * thinking block signed by the gateway. `max_completion_tokens` (or `max_tokens`) is the output
 * bound; without one, validate() defaults it. What Messages cannot express is refused, naming its path.
 */
export function messagesFromChat(chat: ChatRequest): ChatAsMessages {
  const system: string[] = [];
  const messages: MessageParam[] = [];
  let results: ContentBlock[] | undefined; // the user turn tool results are gathered in
  chat.messages.forEach((m, i) => {
    const path = `messages.${i}`;
    if (m.role === 'system' || m.role === 'developer') return void system.push(textOfParts(m.content));
    if (m.role === 'tool') {
      const content = typeof m.content === 'string' ? m.content : userBlocks(m.content, `${path}.content`);
      const result: ToolResultBlock = { type: 'tool_result', tool_use_id: m.tool_call_id ?? '', content };
      if (results) results.push(result);
      else messages.push({ role: 'user', content: (results = [result]) });
      return;
    }
    if (m.role === 'user' && results) results.push(...userBlocks(m.content, `${path}.content`));
    else if (m.role === 'user') messages.push({ role: 'user', content: typeof m.content === 'string' ? m.content : userBlocks(m.content, `${path}.content`) });
    else messages.push(assistantTurn(m, path));
    results = undefined;
  });
  const request: ChatAsMessages = { model: chat.model, messages };
  const bound = chat.max_completion_tokens ?? chat.max_tokens;
  if (bound !== undefined) request.max_tokens = bound;
  if (system.length > 0) request.system = system.join(SYSTEM_MESSAGES_JOIN);
  if (chat.temperature !== undefined) request.temperature = chat.temperature;
  if (chat.top_p !== undefined) request.top_p = chat.top_p;
  if (typeof chat.stop === 'string' || Array.isArray(chat.stop)) request.stop_sequences = typeof chat.stop === 'string' ? [chat.stop] : chat.stop;
  if (chat.stream === true) request.stream = true;
  if (chat.user !== undefined) request.metadata = { user_id: chat.user };
  if (chat.tools !== undefined && chat.tools.length > 0) request.tools = chat.tools.map((t, i) => tool(t, `tools.${i}`));
  const choice = toolChoice(chat);
  if (choice) request.tool_choice = choice;
  const config = chat.response_format === undefined ? undefined : outputConfig(chat.response_format);
  if (config) request.output_config = config;
  return request;
}
