/** A Message as the chat route's whole answer, a `chat.completion`. */
import { invalidToolInput } from '../../foundation/answer-errors';
import { isBlock, textOf, toolInputJson } from '../../messages/content';
import type { MessageResponse } from '../../messages/request';
import { ANSWER_JOIN, finishReasonOf } from './tables';
import type { ChatAnswerMessage, ChatCompletion, ChatToolCall } from './types';
import { chatUsage } from './usage';

/**
 * The `chat.completion` for a Message: its text, its calls as `tool_calls`, its thinking as
 * `reasoning_content`. A call whose input is not a JSON object makes the answer invalid.
 */
export function completionFromMessage(message: MessageResponse, id: string, model: string, created: number): ChatCompletion {
  const calls: ChatToolCall[] = [];
  let reasoning: string | undefined;
  for (const block of message.content) {
    if (isBlock(block, 'tool_use')) {
      const args = toolInputJson(block.input);
      if (args === undefined) throw invalidToolInput(JSON.stringify(block.input) ?? String(block.input));
      calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: args } });
    }
    else if (isBlock(block, 'thinking')) reasoning = (reasoning ?? '') + block.thinking;
  }
  const text = textOf(message.content, ANSWER_JOIN);
  const answer: ChatAnswerMessage = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, refusal: null };
  if (calls.length > 0) answer.tool_calls = calls;
  if (reasoning !== undefined) answer.reasoning_content = reasoning;
  return {
    id, object: 'chat.completion', created, model,
    choices: [{ index: 0, message: answer, logprobs: null, finish_reason: finishReasonOf(message.stop_reason) }],
    usage: chatUsage(message.usage),
  };
}
