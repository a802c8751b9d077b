/**
 * Server tools under a budget: the upstream itself runs them and reads what they bring back as
 * input, within the same request. A web search or web fetch tool is bounded (its `max_uses` at most
 * `maxSearches`, a fetch's `max_content_tokens` at most `searchTokens`); any other server tool
 * (code execution, an MCP toolset, `mcp_servers`) has no bound before the call and is refused.
 */

/** How far a budget lets server tools go, per request. */
export interface ToolBounds {
  /** Uses of each web search or web fetch tool (its `max_uses`, lowered or set to this); 0 refuses them. */
  maxSearches: number;
  /** Input tokens one use may bring back (a search's results, a fetched page: a fetch's `max_content_tokens`). */
  searchTokens: number;
}

/** The server-tool uses a request may make once bounded: searches (billed per use) and every use (each brings input back). */
export interface ToolUses {
  searches: number;
  uses: number;
}

const SEARCH = /^web_search/;
const FETCH = /^web_fetch/;
const OTHER = /^(code_execution|mcp_toolset|computer_use_server|bash_code_execution|text_editor_code_execution)/;

const capped = (value: unknown, max: number): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? Math.min(value, max) : max);

/**
 * Bounds the server tools of a Messages body in place (the body sent upstream is this one) and
 * returns their uses, or the field that cannot be bounded.
 */
export function boundServerTools(body: Record<string, unknown>, bounds: ToolBounds): ToolUses | { unbounded: string } {
  if (body.mcp_servers !== undefined) return { unbounded: 'mcp_servers' };
  const out: ToolUses = { searches: 0, uses: 0 };
  if (!Array.isArray(body.tools)) return out;
  for (const [i, tool] of body.tools.entries()) {
    const type = typeof (tool as { type?: unknown } | null)?.type === 'string' ? (tool as { type: string }).type : '';
    const search = SEARCH.test(type);
    if (!search && !FETCH.test(type)) {
      if (OTHER.test(type)) return { unbounded: `tools.${i}.type` };
      continue;
    }
    if (bounds.maxSearches === 0) return { unbounded: `tools.${i}.type` };
    const t = tool as Record<string, unknown>;
    t.max_uses = capped(t.max_uses, bounds.maxSearches);
    if (!search) t.max_content_tokens = capped(t.max_content_tokens, bounds.searchTokens);
    out.uses += t.max_uses as number;
    if (search) out.searches += t.max_uses as number;
  }
  return out;
}
