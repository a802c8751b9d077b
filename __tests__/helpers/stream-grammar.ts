/**
 * The stream grammars agents rely on, as checkers that list every violation: Anthropic's event
 * stream (what Claude Code and @anthropic-ai/sdk read) and OpenAI's chunk stream (what the openai
 * SDK reads). Each rule is one peers' translations were seen to break (docs/translation.md).
 */

type Json = Record<string, unknown>;

/** One SSE frame: its `event:` name (undefined when none) and its data (parsed JSON, or the raw text). */
export interface Frame {
  event: string | undefined;
  data: unknown;
  comment?: true;
}

/** The frames of an SSE body; comment lines come as frames with `comment: true`. */
export function parseFrames(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const raw of text.split(/\n\n/)) {
    if (raw.trim() === '') continue;
    if (raw.startsWith(':')) {
      frames.push({ event: undefined, data: raw, comment: true });
      continue;
    }
    let event: string | undefined;
    const data: string[] = [];
    for (const line of raw.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    const joined = data.join('\n');
    let parsed: unknown = joined;
    try {
      parsed = JSON.parse(joined);
    } catch {
      // [DONE] and anything else that is not JSON stays text
    }
    frames.push({ event, data: parsed });
  }
  return frames;
}

const DELTA_BLOCK: Readonly<Record<string, readonly string[]>> = {
  text_delta: ['text'], citations_delta: ['text'], input_json_delta: ['tool_use', 'server_tool_use'],
  thinking_delta: ['thinking'], signature_delta: ['thinking'],
};

/** Whether a tool input is a JSON object; Anthropic streams may send none for an empty input (`{}` then), chat streams may not. */
const jsonObject = (text: string, emptyIsObject: boolean): boolean => {
  try {
    const value: unknown = JSON.parse(text === '' && emptyIsObject ? '{}' : text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
};

const usageFields = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'];

/**
 * Violations of the Messages stream grammar: exactly one `message_start` first (content [], every
 * usage field); blocks in index order 0, 1…, one open at a time, each stopped before the next
 * starts; each delta on the open block, of its type; every tool input a JSON object sent as
 * input_json_delta (Claude Code ignores the start's `input`); then one
 * `message_delta` (delta and cumulative usage) after the last block, `stop_reason: "tool_use"`
 * exactly when a tool was called, and `message_stop` last. Pings may come anywhere. With
 * `upstreamUsage`, message_start's usage is an Anthropic upstream's own (forwarded as it came).
 */
export function messagesViolations(frames: readonly Frame[], { upstreamUsage = false } = {}): string[] {
  const out: string[] = [];
  const events = frames.filter((f) => !f.comment);
  let started = 0;
  let open: { index: number; type: string; json: string } | undefined;
  let next = 0;
  let tools = 0;
  let delta: Json | undefined;
  let stopped = false;
  events.forEach((frame, at) => {
    const e = (frame.data ?? {}) as Json;
    const where = `event ${at} (${String(e.type)})`;
    if (frame.event !== e.type) out.push(`${where}: event line "${String(frame.event)}" is not its data.type`);
    if (stopped) out.push(`${where}: after message_stop`);
    if (e.type === 'ping') return;
    if (started === 0 && e.type !== 'message_start') out.push(`${where}: before message_start`);
    switch (e.type) {
      case 'message_start': {
        if (++started > 1) out.push(`${where}: a second message_start`);
        const message = (e.message ?? {}) as Json;
        if (!Array.isArray(message.content) || message.content.length > 0) out.push(`${where}: content is not []`);
        for (const f of upstreamUsage ? usageFields.slice(0, 2) : usageFields) if (typeof (message.usage as Json | undefined)?.[f] !== 'number') out.push(`${where}: usage.${f} missing`);
        break;
      }
      case 'content_block_start': {
        const block = (e.content_block ?? {}) as Json;
        if (open) out.push(`${where}: block ${String(e.index)} starts while block ${open.index} is open`);
        if (e.index !== next) out.push(`${where}: index ${String(e.index)}, expected ${next}`);
        if (delta) out.push(`${where}: after message_delta`);
        next++;
        if (block.type === 'tool_use') tools++;
        // Claude Code reads a tool's input only from its input_json_delta events: one sent here is lost.
        if (block.type === 'tool_use' && JSON.stringify(block.input) !== '{}') out.push(`${where}: tool input sent in content_block_start`);
        open = { index: e.index as number, type: String(block.type), json: '' };
        break;
      }
      case 'content_block_delta': {
        const d = (e.delta ?? {}) as Json;
        if (!open || open.index !== e.index) out.push(`${where}: ${String(d.type)} for block ${String(e.index)}, which is not open`);
        else if (!DELTA_BLOCK[String(d.type)]?.includes(open.type)) out.push(`${where}: ${String(d.type)} on a ${open.type} block`);
        else if (d.type === 'input_json_delta') open.json += String(d.partial_json);
        break;
      }
      case 'content_block_stop':
        if (!open || open.index !== e.index) out.push(`${where}: stops block ${String(e.index)}, which is not open`);
        else if (open.type === 'tool_use' && !jsonObject(open.json, true)) out.push(`${where}: tool input ${JSON.stringify(open.json)} is not a JSON object`);
        open = undefined;
        break;
      case 'message_delta':
        if (open) out.push(`${where}: block ${open.index} still open`);
        if (typeof e.delta !== 'object' || typeof e.usage !== 'object' || typeof (e.usage as Json).output_tokens !== 'number') out.push(`${where}: no delta or usage`);
        delta = e.delta as Json;
        break;
      case 'message_stop':
        if (!delta) out.push(`${where}: no message_delta before it`);
        stopped = true;
        break;
      default:
    }
  });
  if (started !== 1) out.push(`${started} message_start events`);
  if (!stopped) out.push('no message_stop');
  if (delta && (delta.stop_reason === 'tool_use') !== (tools > 0)) out.push(`stop_reason ${String(delta.stop_reason)} with ${tools} tool_use blocks`);
  return out;
}

/**
 * Violations of the chat chunk grammar: one id for every chunk; the role first; each tool call's
 * first fragment carries its index (0, 1… in order), id, type and name, later ones only arguments,
 * which add up to a JSON object; one finish reason, on the last choice chunk, `tool_calls` exactly
 * when there were calls; a usage chunk (no choices) only after it; `[DONE]` last.
 */
export function chatViolations(frames: readonly Frame[]): string[] {
  const out: string[] = [];
  const data = frames.filter((f) => !f.comment).map((f) => f.data);
  if (data.at(-1) !== '[DONE]') out.push('does not end with [DONE]');
  const chunks = data.slice(0, -1) as Json[];
  const ids = new Set(chunks.map((c) => c.id));
  if (ids.size !== 1) out.push(`${ids.size} chunk ids`);
  const args: string[] = [];
  let finish: unknown;
  let usageAt = -1;
  chunks.forEach((chunk, at) => {
    const where = `chunk ${at}`;
    if (chunk.object !== 'chat.completion.chunk') out.push(`${where}: object ${String(chunk.object)}`);
    const choices = chunk.choices as Json[];
    if (choices.length === 0) {
      if (finish === undefined) out.push(`${where}: usage chunk before the finish reason`);
      if (usageAt >= 0) out.push(`${where}: a second usage chunk`);
      usageAt = at;
      return;
    }
    if (finish !== undefined) out.push(`${where}: a choice after the finish reason`);
    const choice = choices[0] as Json;
    const delta = (choice.delta ?? {}) as Json;
    if (at === 0 && delta.role !== 'assistant') out.push(`${where}: no role first`);
    for (const call of (delta.tool_calls ?? []) as Json[]) {
      const i = call.index as number;
      const fn = (call.function ?? {}) as Json;
      if (args[i] === undefined) {
        if (i !== args.length) out.push(`${where}: tool call index ${i}, expected ${args.length}`);
        if (typeof call.id !== 'string' || call.type !== 'function' || typeof fn.name !== 'string') out.push(`${where}: tool call ${i} starts without id, type and name`);
        args[i] = '';
      } else if (call.id !== undefined || fn.name !== undefined) out.push(`${where}: tool call ${i} repeats its id or name`);
      args[i] += typeof fn.arguments === 'string' ? fn.arguments : '';
    }
    if (choice.finish_reason !== null) finish = choice.finish_reason;
  });
  if (finish === undefined) out.push('no finish reason');
  if ((finish === 'tool_calls') !== (args.length > 0)) out.push(`finish_reason ${String(finish)} with ${args.length} tool calls`);
  args.forEach((a, i) => {
    if (!jsonObject(a, false)) out.push(`tool call ${i}: arguments ${JSON.stringify(a)} are not a JSON object`);
  });
  return out;
}
