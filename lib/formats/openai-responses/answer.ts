/** A whole answer (a Message) → the response object `responses.create` answers with. */
import { invalidToolInput } from '../../foundation/answer-errors';
import { isBlock, toolInputJson } from '../../messages/content';
import type { MessageResponse } from '../../messages/request';
import { callItem, messageItem, outputText, reasoningItem, webSearchItem } from './output';
import { isReasoningBlock } from './reasoning';
import { isIncomplete, type ResponseEnvelope } from './response';
import { WEB_SEARCH_TOOL } from './tools';
import type { MessageItem, OutputItem, ResponseObject } from './types';

/**
 * The response for a Message: consecutive text blocks as one message item (a part each), thinking
 * and redacted thinking as reasoning items, tool calls as function or custom tool calls, Anthropic's
 * web searches as web_search_call items, in the order the upstream gave them. Server tool results
 * and blocks the format has no item for are left out. A call whose input is not a JSON object
 * makes the answer invalid (docs/translation.md, "Invalid answers").
 */
/** Throws the invalid answer a tool input that is not a JSON object makes. */
const invalid = (input: unknown): never => {
  throw invalidToolInput(JSON.stringify(input) ?? String(input));
};

export function responseFromMessage(message: MessageResponse, envelope: ResponseEnvelope): ResponseObject {
  const output: OutputItem[] = [];
  let text: MessageItem | undefined;
  for (const block of message.content) {
    if (isBlock(block, 'text')) {
      if (!text) output.push((text = messageItem('completed')));
      text.content.push(outputText(block.text));
      continue;
    }
    text = undefined;
    if (isReasoningBlock(block)) output.push(reasoningItem(block, envelope.plan));
    else if (isBlock(block, 'tool_use')) output.push(callItem(block.id, block.name, toolInputJson(block.input) ?? invalid(block.input), envelope.plan, 'completed'));
    else if (isBlock(block, 'server_tool_use') && block.name === WEB_SEARCH_TOOL) output.push(webSearchItem(JSON.stringify(block.input ?? {}), 'completed'));
  }
  const last = output.at(-1);
  if (last?.type === 'message' && isIncomplete(message.stop_reason)) last.status = 'incomplete';
  return envelope.final(message.stop_reason, output, message.usage);
}
