/**
 * MCP tool rules as a person reads them: `github/search_*`, and for an allow rule the launch
 * command it is bound to (`@sha256:…`, the server's fingerprint), shown short.
 */

export interface McpRuleParts {
  /** `SERVER/TOOL`, as the person wrote it. */
  names: string;
  /** `sha256:` and 64 hex digits; null for an ask or deny rule. */
  fingerprint: string | null;
}

export function mcpRuleParts(pattern: string): McpRuleParts {
  const at = pattern.indexOf("@");
  if (at < 0) return { names: pattern, fingerprint: null };
  return { names: pattern.slice(0, at), fingerprint: pattern.slice(at + 1) };
}

/** `sha256:1a2b3c4d…`: enough to tell two launch commands apart at a glance. */
export function shortFingerprint(fingerprint: string): string {
  const hex = fingerprint.replace(/^sha256:/, "");
  return `sha256:${hex.slice(0, 12)}…`;
}

/** Whether a tool name is an MCP server's (`mcp__server__tool`). */
export function isMcpTool(tool: string): boolean {
  return tool.startsWith("mcp__");
}
