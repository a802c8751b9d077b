/** The response object: one id from `response.created` to the final event, the request's fields echoed, the status of a stop reason. */
import type { MessageUsage, StopReason } from '../../messages/request';
import type { ResponsesPlan } from './request';
import type { OutputItem, ResponseObject, ResponseStatus } from './types';
import { toolsJson } from './echo-json';
import { responsesUsage } from './usage';

/** Stop reasons that end a response `incomplete`, and the reason given; every other one completes it. */
const INCOMPLETE: ReadonlyMap<string, 'max_output_tokens' | 'content_filter'> = new Map([
  ['max_tokens', 'max_output_tokens'], ['model_context_window_exceeded', 'max_output_tokens'], ['refusal', 'content_filter'],
]);

/** Whether an answer that stopped for `reason` is incomplete (cut by the output bound or a filter). */
export const isIncomplete = (reason: StopReason | null | undefined): boolean => typeof reason === 'string' && INCOMPLETE.has(reason);

const TOOLS = '\u0000mgw-tools';
const TOOLS_JSON = JSON.stringify(TOOLS);

/** `JSON.stringify(echo)`, its tools' JSON made once per distinct tools (echo-json.ts). */
function echoJson(echo: Readonly<Record<string, unknown>>): string {
  const tools = echo.tools;
  if (!Array.isArray(tools) || tools.length === 0) return JSON.stringify(echo);
  const json = JSON.stringify({ ...echo, tools: TOOLS });
  const at = json.indexOf(TOOLS_JSON); // a string token equal to the marker; another one (a request's own) serialises whole
  if (at < 0 || at !== json.lastIndexOf(TOOLS_JSON)) return JSON.stringify(echo);
  return json.slice(0, at) + toolsJson(tools) + json.slice(at + TOOLS_JSON.length);
}

/** The response objects of one request: every one carries the same id, creation time, model and echoed fields. */
export class ResponseEnvelope {
  constructor(
    readonly plan: ResponsesPlan,
    readonly id: string,
    /** The public model name. */
    readonly model: string,
    /** Epoch seconds. */
    readonly createdAt: number,
  ) {}

  /** The echoed fields' members as JSON (`"k":v,…`), serialised once: they hold the request's instructions and tools. */
  private echoMembers: string | undefined;
  private echoKeys: string[] | undefined;

  /**
   * `JSON.stringify(response)` for a response made by object(), with the echoed fields' JSON made once per request
   * (a stream's created, in_progress and final events each carry them). The same bytes (property-tested): the echo's
   * members are spliced after the response's own; any response whose echoed fields are not the request's own values,
   * or not last, is serialised whole.
   */
  json(response: ResponseObject): string {
    const echo = this.plan.echo;
    const keys = (this.echoKeys ??= Object.keys(echo));
    const own: Record<string, unknown> = {};
    let echoed = 0;
    for (const key in response) {
      const value = (response as unknown as Record<string, unknown>)[key];
      if (echoed < keys.length && key === keys[echoed] && value === echo[key]) echoed++;
      else if (echoed > 0 || Object.hasOwn(echo, key)) return JSON.stringify(response); // not the echo, last and in its order
      else own[key] = value;
    }
    if (echoed < keys.length) return JSON.stringify(response);
    const members = (this.echoMembers ??= echoJson(echo).slice(1, -1));
    const head = JSON.stringify(own);
    if (members === '') return head;
    return head === '{}' ? `{${members}}` : `${head.slice(0, -1)},${members}}`;
  }

  /** The response in `status`, with its output and usage so far (none while in progress), and any field that overrides. */
  object(status: ResponseStatus, output: OutputItem[], usage: Partial<MessageUsage> | undefined, extra: Partial<ResponseObject> = {}): ResponseObject {
    return {
      id: this.id, object: 'response', created_at: this.createdAt, status, completed_at: null, error: null, incomplete_details: null,
      model: this.model, output, usage: usage === undefined ? null : responsesUsage(usage), ...this.plan.echo, ...extra,
    };
  }

  /** The final response of an answer that stopped for `reason`: completed, or incomplete with why. */
  final(reason: StopReason | null | undefined, output: OutputItem[], usage: Partial<MessageUsage> | undefined): ResponseObject {
    const why = typeof reason === 'string' ? INCOMPLETE.get(reason) : undefined;
    if (why) return this.object('incomplete', output, usage ?? {}, { incomplete_details: { reason: why } });
    return this.object('completed', output, usage ?? {}, { completed_at: Math.floor(Date.now() / 1000) });
  }
}
