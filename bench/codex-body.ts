/** A recorded Codex CLI 0.169.0 request (the sixth of a real session: its prompt, 10 tools, five calls with their outputs,
 * reasoning and commentary), local paths replaced; re-recorded and checked by __tests__/integration/codex-body.test.ts. */
import recorded from './codex-body.json';
import headers from './codex-headers.json';

/** The body (about 70 KB as JSON) for `model`. Its reasoning items carry the fake server's encrypted_content, not one a gateway
 * minted: `reasoning: false` leaves them out, for a route that refuses reasoning it cannot read. */
export function codexBody(model = 'codex-bench', { reasoning = true }: { reasoning?: boolean } = {}): Record<string, unknown> {
  const body = structuredClone(recorded);
  return { ...body, model, input: reasoning ? body.input : body.input.filter((item) => item.type !== 'reasoning') };
}

/** The headers Codex sent with it (no authorization: the key is the caller's; no host or content-length). */
export const CODEX_HEADERS: Record<string, string> = headers;
