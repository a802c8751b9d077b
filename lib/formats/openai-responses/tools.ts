/**
 * Tools both ways: Responses tools → Messages tools (function; custom as a one-string function;
 * namespaces flattened; built-ins mapped or dropped), and the upstream's tool names back to the
 * caller's tool, kind and namespace.
 */
import { createHash } from 'node:crypto';
import type { UpstreamFormat } from '../../billing/figures';
import type { CustomTool, ServerTool, Tool, ToolChoice } from '../../messages/request';
import { refused } from './errors';
import type { ResponsesTool, ResponsesToolChoice } from './types';

/** A tool as the caller named it. */
export interface ToolName {
  kind: 'function' | 'custom';
  name: string;
  namespace?: string;
}

/** Tool names both upstream formats take. */
const WIRE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const hash8 = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 8);
const keyOf = (name: string, namespace?: string): string => `${namespace ?? ''}\u0000${name}`;

/**
 * The upstream name of a tool: `name`, or `namespace__name`, as it is when the upstreams take it;
 * else cleaned, cut to 55 characters and told apart by 8 hex characters of a SHA-256 (for a plain
 * long name, the same name the chat translation gives it: lib/formats/openai-chat/tool-names.ts).
 */
export function wireNameOf(name: string, namespace?: string): string {
  const joined = namespace === undefined ? name : `${namespace}__${name}`;
  if (WIRE_NAME.test(joined)) return joined;
  return `${joined.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 55)}_${hash8(namespace === undefined ? name : keyOf(name, namespace))}`;
}

/** The tool names of one request, both ways: collision-free, so every upstream name gives back one tool. */
export class ToolNames {
  private readonly byWire = new Map<string, ToolName>();
  private readonly wireByKey = new Map<string, string>();

  /** Registers a tool and returns its upstream name; a name another tool took gets a hash of its own. */
  add(tool: ToolName): string {
    const key = keyOf(tool.name, tool.namespace);
    const known = this.wireByKey.get(key);
    if (known !== undefined) return known;
    let wire = wireNameOf(tool.name, tool.namespace);
    for (let n = 0; this.byWire.has(wire); n++) wire = `${wire.slice(0, 55)}_${hash8(`${key}\u0000${n}`)}`;
    this.byWire.set(wire, tool);
    this.wireByKey.set(key, wire);
    return wire;
  }

  /** The upstream name of a tool of this request, else the name it would have. */
  wire(name: string, namespace?: string): string {
    return this.wireByKey.get(keyOf(name, namespace)) ?? wireNameOf(name, namespace);
  }

  /** Whether a tool of this name and namespace (none: a top-level one) was registered. */
  has(name: string, namespace?: string): boolean {
    return this.wireByKey.has(keyOf(name, namespace));
  }

  /** The caller's tool for an upstream name (one the request never offered: a function of that name). */
  restore(wire: string): ToolName {
    return this.byWire.get(wire) ?? { kind: 'function', name: wire };
  }
}

/** The one property of a custom tool's function: its free-form input. */
export const CUSTOM_INPUT = 'input';

const customSchema = (): CustomTool['input_schema'] => ({
  type: 'object', properties: { [CUSTOM_INPUT]: { type: 'string', description: 'The whole free-form input of the tool.' } }, required: [CUSTOM_INPUT], additionalProperties: false,
});

function functionTool(tool: ResponsesTool, wire: string, path: string): CustomTool {
  const parameters = tool.parameters ?? { type: 'object', properties: {} };
  if (parameters.type !== 'object') throw refused(`${path}.parameters.type`, 'the Messages format takes only "object" parameters');
  const out: CustomTool = { name: wire, input_schema: parameters as CustomTool['input_schema'] };
  if (typeof tool.description === 'string' && tool.description !== '') out.description = tool.description;
  if (tool.strict === true) out.strict = true;
  return out;
}

/** A custom tool as a function of one string; its grammar (Codex's apply_patch has one) goes into the description. */
function customTool(tool: ResponsesTool, wire: string): CustomTool {
  let description = typeof tool.description === 'string' ? tool.description : '';
  const format = tool.format;
  if (format?.type === 'grammar' && typeof format.definition === 'string') {
    description += `${description === '' ? '' : '\n\n'}The input must follow this ${String(format.syntax ?? '')} grammar:\n${format.definition}`;
  }
  return { name: wire, ...(description === '' ? {} : { description }), input_schema: customSchema() };
}

/** Built-in web search types; Anthropic-format upstreams run it as their web search server tool. */
const WEB_SEARCH = new Set(['web_search', 'web_search_preview', 'web_search_preview_2025_03_11', 'web_search_2025_08_26']);
export const WEB_SEARCH_TOOL = 'web_search';

function webSearchTool(tool: ResponsesTool): ServerTool {
  const out: ServerTool = { type: 'web_search_20250305', name: WEB_SEARCH_TOOL };
  const domains = (tool.filters as { allowed_domains?: unknown } | null | undefined)?.allowed_domains;
  if (Array.isArray(domains) && domains.length > 0) out.allowed_domains = domains;
  const location = tool.user_location as Record<string, unknown> | null | undefined;
  if (location && typeof location === 'object') {
    const { city, region, country, timezone } = location;
    out.user_location = { type: 'approximate', ...(city ? { city } : {}), ...(region ? { region } : {}), ...(country ? { country } : {}), ...(timezone ? { timezone } : {}) };
  }
  return out;
}

/** A tool and where the request gave it (`tools.3`, or `input.0.tools.1` for an additional_tools item). */
export interface PlacedTool {
  tool: ResponsesTool;
  path: string;
}

/**
 * The Messages tools for a request's tools: functions as they are (no `parameters`: an empty
 * object schema), custom tools as one-string functions, namespaces flattened; web search becomes
 * Anthropic's server tool on Anthropic-format upstreams. Every other built-in is dropped, its path
 * and type added to `dropped`: clients such as Codex send them on every turn.
 */
export function messagesTools(placed: readonly PlacedTool[], format: UpstreamFormat | undefined, names: ToolNames, dropped: string[]): Tool[] {
  const out: Tool[] = [];
  let search: ResponsesTool | undefined;
  const add = (tool: ResponsesTool, path: string, namespace?: string): void => {
    const own = tool.type === 'function' || tool.type === 'custom';
    // A tool offered twice (an additional_tools item repeating one): the first stands, as an upstream takes one tool per name.
    if (own && names.has(String(tool.name), namespace)) dropped.push(`${path} (a second tool named ${String(tool.name).slice(0, 64)})`);
    else if (tool.type === 'function') out.push(functionTool(tool, names.add({ kind: 'function', name: String(tool.name), ...(namespace === undefined ? {} : { namespace }) }), path));
    else if (tool.type === 'custom') out.push(customTool(tool, names.add({ kind: 'custom', name: String(tool.name), ...(namespace === undefined ? {} : { namespace }) })));
    else if (tool.type === 'namespace' && namespace === undefined) (tool.tools ?? []).forEach((inner, j) => add(inner, `${path}.tools.${j}`, String(tool.name)));
    else if (WEB_SEARCH.has(tool.type) && format === 'anthropic' && search === undefined) search = tool;
    else dropped.push(`${path} (${tool.type})`);
  };
  for (const { tool, path } of placed) add(tool, path);
  // After the functions: a caller's own function named web_search keeps its name, and the built-in goes.
  if (search) {
    if (names.has(WEB_SEARCH_TOOL)) dropped.push(`tools (${search.type}: a function has its name)`);
    else out.push(webSearchTool(search));
  }
  return out;
}

const CHOICES: ReadonlyMap<string, 'auto' | 'none' | 'any'> = new Map([['auto', 'auto'], ['none', 'none'], ['required', 'any']]);

/**
 * The Messages tool choice: auto, none, required (any), a function or custom tool by name, or
 * `allowed_tools` (which keeps only the tools it names); a built-in that was dropped is `auto`.
 * `parallel_tool_calls: false` becomes `disable_parallel_tool_use`.
 */
export function messagesToolChoice(choice: ResponsesToolChoice | null | undefined, parallel: boolean | null | undefined, tools: Tool[], names: ToolNames, dropped: string[]): ToolChoice | undefined {
  let out: ToolChoice | undefined;
  if (typeof choice === 'string') out = { type: CHOICES.get(choice) ?? 'auto' };
  else if (choice && (choice.type === 'function' || choice.type === 'custom')) {
    const wire = names.wire(String(choice.name));
    if (!tools.some((t) => t.name === wire)) throw refused('tool_choice.name', `no tool named "${String(choice.name).slice(0, 64)}" is offered`);
    out = { type: 'tool', name: wire };
  } else if (choice?.type === 'allowed_tools') {
    const allowed = new Set((choice.tools ?? []).map((t) => (WEB_SEARCH.has(t.type) ? WEB_SEARCH_TOOL : names.wire(String(t.name)))));
    for (let i = tools.length - 1; i >= 0; i--) if (!allowed.has((tools[i] as Tool).name)) tools.splice(i, 1);
    out = { type: choice.mode === 'required' ? 'any' : 'auto' };
  } else if (choice && WEB_SEARCH.has(choice.type) && tools.some((t) => t.name === WEB_SEARCH_TOOL && t.type !== undefined)) {
    out = { type: 'tool', name: WEB_SEARCH_TOOL };
  } else if (choice) {
    dropped.push(`tool_choice (${choice.type})`);
    out = { type: 'auto' };
  }
  if (parallel === false && out?.type !== 'none') out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true } as ToolChoice;
  return out;
}
