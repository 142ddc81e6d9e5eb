import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { McpServerListing } from "../bindings/McpServerListing";
import type { McpServerTest } from "../bindings/McpServerTest";
import type { McpServerView } from "../bindings/McpServerView";
import { mockShell } from "../test/shell";
import { McpSettings } from "./McpSettings";

function server(name: string, overrides: Partial<McpServerView> = {}): McpServerView {
  return {
    name,
    enabled: true,
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-everything", "stdio"],
    env: [],
    env_vars: [],
    approval: "ask",
    read_only_tools: [],
    startup_timeout_ms: 10_000,
    tool_timeout_ms: 60_000,
    fingerprint: "sha256:x",
    ...overrides,
  };
}

/** A fake app keeping the servers as Rust does, answering each command with the listing after it. */
function fakeApp(servers: McpServerView[], tests: Record<string, McpServerTest> = {}, problems: McpServerListing["problems"] = []) {
  const calls: [string, Record<string, unknown>][] = [];
  const listing = (): McpServerListing => ({ v: 1, kind: "mcp_servers", config: "/home/me/.config/strata/config.toml", servers: [...servers], problems });
  mockShell((cmd, args) => {
    calls.push([cmd, args]);
    switch (cmd) {
      case "add_mcp_server": {
        if (servers.some((s) => s.name === args.name)) throw { kind: "invalid_input", message: `An MCP server named "${String(args.name)}" is configured already.` };
        const [command, ...rest] = String(args.command_line).split(" ");
        servers.push(server(String(args.name), { command, args: rest, env_vars: args.env_vars as string[], approval: args.approval as McpServerView["approval"] }));
        return listing();
      }
      case "set_mcp_server_enabled":
        servers.forEach((s) => s.name === args.name && (s.enabled = Boolean(args.enabled)));
        return listing();
      case "remove_mcp_server":
        servers.splice(
          servers.findIndex((s) => s.name === args.name),
          1,
        );
        return listing();
      case "test_mcp_server":
        return tests[String(args.name)];
      case "mcp_server_log":
        return { name: args.name, lines: args.name === "everything" ? ["=== 2026-12-04T19:00:00Z pid 41 stopped: exit status: 0", "Starting default (STDIO) server...", "<b>not bold</b>"] : [] };
      default:
        return listing();
    }
  });
  return calls;
}

const READY: McpServerTest = {
  v: 1,
  kind: "mcp_test",
  server: "everything",
  ok: true,
  phases: [
    { phase: "initialize", millis: 268 },
    { phase: "list_tools", millis: 8 },
    { phase: "stop", millis: 350 },
  ],
  server_info: "mcp-servers/everything 2.0.0",
  tools: [
    { name: "mcp__everything__echo", tool: "echo", description: "Echoes back the input string", tokens: 60 },
    { name: "mcp__everything__evil", tool: "evil", description: '<img src=x onerror="alert(1)">', tokens: 1073 },
  ],
  estimator: "o200k_base",
  definition_tokens: 1133,
  stderr_tail: ["Starting default (STDIO) server..."],
  stray_stdout_lines: 0,
};

describe("McpSettings", () => {
  it("lists each server with its command as a shell reads it, and turns one off and removes another", async () => {
    const calls = fakeApp([server("everything"), server("docs", { command: "docs server", args: ["it's"], env_vars: ["DOCS_TOKEN"], approval: "auto" })]);
    const user = userEvent.setup();
    render(<McpSettings />);
    const table = await screen.findByRole("table", { name: "MCP servers" });
    const rows = within(table).getAllByTestId("mcp-server-row");
    expect(rows.map((r) => r.textContent)).toEqual([
      "everythingnpx -y @modelcontextprotocol/server-everything stdioAsk firstOnTest Logs Remove",
      "docsgets DOCS_TOKEN'docs server' 'it'\\''s'Run freelyOnTest Logs Remove",
    ]);
    expect(screen.getByText("/home/me/.config/strata/config.toml")).toBeInTheDocument();

    await user.click(screen.getByRole("switch", { name: "Start everything in sessions" }));
    await waitFor(() => expect(screen.getByRole("switch", { name: "Start everything in sessions" })).not.toBeChecked());
    expect(calls.find(([cmd]) => cmd === "set_mcp_server_enabled")?.[1]).toEqual({ name: "everything", enabled: false });
    expect(within(table).getAllByTestId("mcp-server-row")[0]).toHaveTextContent("Off");

    await user.click(screen.getByRole("button", { name: "Remove docs" }));
    await waitFor(() => expect(within(table).getAllByTestId("mcp-server-row")).toHaveLength(1));
    expect(calls.find(([cmd]) => cmd === "remove_mcp_server")?.[1]).toEqual({ name: "docs" });
  });

  it("adds a server with its variables and approval from the keyboard, and shows a refusal", async () => {
    const calls = fakeApp([]);
    const user = userEvent.setup();
    render(<McpSettings />);
    expect(await screen.findByText(/No MCP servers yet/)).toBeInTheDocument();
    await user.type(screen.getByLabelText("Name"), "github");
    await user.type(screen.getByLabelText("Variables it gets"), "GITHUB_TOKEN, GH_HOST");
    const calls_ = screen.getByRole("combobox", { name: "Calls" });
    calls_.focus();
    await user.keyboard("{ArrowDown}{ArrowDown}{Enter}");
    expect(calls_).toHaveTextContent("Run without asking");
    await user.type(screen.getByLabelText("Command"), "github-mcp stdio{Enter}");
    const row = await screen.findByTestId("mcp-server-row");
    expect(row).toHaveTextContent("githubgets GITHUB_TOKEN, GH_HOSTgithub-mcp stdioRun freely");
    expect(calls.find(([cmd]) => cmd === "add_mcp_server")?.[1]).toEqual({ name: "github", command_line: "github-mcp stdio", env_vars: ["GITHUB_TOKEN", "GH_HOST"], approval: "auto" });
    expect(screen.getByLabelText("Name")).toHaveValue("");

    await user.type(screen.getByLabelText("Name"), "github");
    await user.type(screen.getByLabelText("Command"), "other{Enter}");
    expect(await screen.findByRole("alert")).toHaveTextContent('An MCP server named "github" is configured already.');
    expect(screen.getByLabelText("Name")).toHaveValue("github");
  });

  it("tests a server and shows its phases, tools and their token cost, with the server's text as text", async () => {
    const failed: McpServerTest = { ...READY, server: "dies", ok: false, phases: [], tools: [], definition_tokens: 0, server_info: undefined, stderr_tail: [], error: "MCP server dies exited or closed its output; its stderr ends with:\ncannot open the database\\x1b[2J" };
    fakeApp([server("everything"), server("dies", { command: "sh" })], { everything: READY, dies: failed });
    const user = userEvent.setup();
    const { container } = render(<McpSettings />);
    await user.click(await screen.findByRole("button", { name: "Test everything" }));
    const result = await screen.findByTestId("mcp-test-result");
    expect(result).toHaveTextContent("mcp-servers/everything 2.0.0 is ready: 2 tools, 1,133 tokens in every request (o200k_base).");
    expect(result).toHaveTextContent("started 268 ms · listed tools 8 ms · stopped 350 ms");
    const tools = within(result).getByRole("table", { name: "Tools of everything" });
    expect(within(tools).getAllByRole("row").map((r) => r.textContent)).toEqual([
      "ToolTokensDescription",
      "echo60Echoes back the input string",
      'evil1,073<img src=x onerror="alert(1)">',
    ]);
    expect(container.querySelector("img")).toBeNull();

    await user.click(screen.getByRole("button", { name: "Test dies" }));
    await waitFor(() => expect(screen.getAllByTestId("mcp-test-result")).toHaveLength(2));
    const dies = screen.getAllByTestId("mcp-test-result")[1];
    expect(dies).toHaveTextContent("dies failed its test.");
    expect(dies).toHaveTextContent("cannot open the database\\x1b[2J");
  });

  it("shows a server's kept stderr under its row as text, and hides it again", async () => {
    fakeApp([server("everything"), server("quiet")]);
    const user = userEvent.setup();
    const { container } = render(<McpSettings />);
    const logs = await screen.findByRole("button", { name: "Logs of everything" });
    await user.click(logs);
    const log = await screen.findByLabelText("Log of everything");
    expect(log.textContent).toBe("=== 2026-12-04T19:00:00Z pid 41 stopped: exit status: 0\nStarting default (STDIO) server...\n<b>not bold</b>");
    expect(container.querySelector("b")).toBeNull();
    expect(logs).toHaveAttribute("aria-expanded", "true");
    await user.click(screen.getByRole("button", { name: "Logs of quiet" }));
    expect(await screen.findByText("No log yet: one is kept when a run of quiet ends.")).toBeInTheDocument();
    await user.click(logs);
    await waitFor(() => expect(screen.queryByLabelText("Log of everything")).toBeNull());
  });

  it("names each table that cannot be read", async () => {
    fakeApp([], {}, [{ name: "typo", message: "unknown field `comand`" }]);
    render(<McpSettings />);
    const problems = await screen.findByTestId("mcp-problems");
    expect(problems).toHaveTextContent("typo is not started: unknown field `comand`");
  });
});
