// The preview backend's MCP servers: kept in memory (the app keeps them in config.toml) and
// never started (the app starts them, in Rust), so a test in the preview says so.
import type { AddMcpServer } from "../bindings/AddMcpServer";
import type { McpServerListing } from "../bindings/McpServerListing";
import type { McpServerTest } from "../bindings/McpServerTest";
import type { McpServerView } from "../bindings/McpServerView";

const CONFIG = "~/.config/strata/config.toml";

export class MockMcpServers {
  servers: McpServerView[] = [
    {
      name: "everything",
      enabled: true,
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything", "stdio"],
      env: [],
      env_vars: [],
      approval: "ask",
      read_only_tools: [],
      startup_timeout_ms: 10_000,
      tool_timeout_ms: 60_000,
      fingerprint: "sha256:preview",
    },
  ];

  listing(): McpServerListing {
    return { v: 1, kind: "mcp_servers", config: CONFIG, servers: [...this.servers].sort((a, b) => a.name.localeCompare(b.name)) };
  }

  named(name: string): McpServerView {
    const server = this.servers.find((s) => s.name === name);
    if (!server) throw { kind: "not_found", message: `No MCP server named "${name}" is configured.` };
    return server;
  }

  add(request: AddMcpServer): McpServerListing {
    const name = request.name.trim();
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(name)) {
      throw { kind: "invalid_input", message: `MCP server "${name}" was not added: a server name is 1 to 32 characters of A-Z, a-z, 0-9, '_' and '-'` };
    }
    if (this.servers.some((s) => s.name === name)) {
      throw { kind: "invalid_input", message: `An MCP server named "${name}" is configured already; remove it first or pick another name.` };
    }
    // Whitespace only: the app splits the command line as a POSIX shell would.
    const [command, ...args] = request.command_line.trim().split(/\s+/);
    if (!command) throw { kind: "invalid_input", message: "Type the command that starts the server." };
    this.servers.push({
      name,
      enabled: true,
      command,
      args,
      env: [],
      env_vars: request.env_vars,
      approval: request.approval,
      read_only_tools: [],
      startup_timeout_ms: 10_000,
      tool_timeout_ms: 60_000,
      fingerprint: "sha256:preview",
    });
    return this.listing();
  }

  remove(name: string): McpServerListing {
    this.named(name);
    this.servers = this.servers.filter((s) => s.name !== name);
    return this.listing();
  }

  setEnabled(name: string, enabled: boolean): McpServerListing {
    this.named(name).enabled = enabled;
    return this.listing();
  }

  test(name: string): McpServerTest {
    this.named(name);
    return {
      v: 1,
      kind: "mcp_test",
      server: name,
      ok: false,
      phases: [],
      tools: [],
      estimator: "chars/4",
      definition_tokens: 0,
      stderr_tail: [],
      stray_stdout_lines: 0,
      error: "The preview backend starts no servers; the app does, in Rust.",
    };
  }
}
