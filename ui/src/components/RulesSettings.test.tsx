import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { RuleRef } from "../bindings/RuleRef";
import { mockShell } from "../test/shell";
import { RulesSettings } from "./RulesSettings";

const WORKSPACE = "/work/app";

/** A fake app keeping rules as Rust does: the user's, the workspace's, and its allow rules not in effect. */
function fakeRules(rules: RuleRef[], notApplied: RuleRef[] = [], noServer: RuleRef[] = []) {
  const calls: [string, Record<string, unknown>][] = [];
  mockShell((cmd, args) => {
    calls.push([cmd, args]);
    const source = args.workspace ? "workspace" : "user";
    const same = (r: RuleRef) => r.source === source && r.kind === args.kind && r.list === args.list && r.pattern === String(args.pattern).trim();
    if (cmd === "add_rule" && !rules.some(same)) rules.push({ source, kind: args.kind, list: args.list, pattern: String(args.pattern).trim() } as RuleRef);
    if (cmd === "remove_rule") rules.splice(rules.findIndex(same), 1);
    if (cmd === "add_rule" && source === "workspace") notApplied.length = 0;
    const shown = rules.filter((r) => r.source === "user" || args.workspace);
    return { v: 1, kind: "rules", rules: shown, not_applied: args.workspace ? notApplied : [], no_server: noServer };
  });
  return calls;
}

describe("RulesSettings", () => {
  it("lists the user's and the workspace's rules with their source, and removes one", async () => {
    const calls = fakeRules([
      { source: "user", kind: "command", list: "allow", pattern: "git status*" },
      { source: "workspace", kind: "write", list: "deny", pattern: "secrets/**" },
    ]);
    const user = userEvent.setup();
    render(<RulesSettings workspace={WORKSPACE} />);
    const table = await screen.findByRole("table", { name: "Approval rules" });
    const rows = within(table).getAllByTestId("rule-row");
    expect(rows.map((r) => r.textContent)).toEqual([
      "Allow commandgit status*You (config.toml)Remove",
      "Deny writesecrets/**This workspace (.strata/rules.toml)Remove",
    ]);
    await user.click(screen.getByRole("button", { name: "Remove deny write secrets/**" }));
    await waitFor(() => expect(within(table).getAllByTestId("rule-row")).toHaveLength(1));
    expect(calls.find(([cmd]) => cmd === "remove_rule")?.[1]).toEqual({ kind: "write", list: "deny", pattern: "secrets/**", workspace: WORKSPACE });
    expect(calls[0]).toEqual(["list_rules", { workspace: WORKSPACE }]);
  });

  it("adds a rule to the chosen list and file with the keyboard", async () => {
    const calls = fakeRules([]);
    const user = userEvent.setup();
    render(<RulesSettings workspace={WORKSPACE} />);
    expect(await screen.findByText(/No rules yet/)).toBeInTheDocument();
    const list = screen.getByRole("combobox", { name: "Rule" });
    list.focus();
    await user.keyboard("{ArrowDown}{ArrowDown}{ArrowDown}{Enter}");
    expect(list).toHaveTextContent("Deny command");
    await user.type(screen.getByLabelText("Pattern"), "curl*{Enter}");
    const row = await screen.findByTestId("rule-row");
    expect(row).toHaveTextContent("Deny commandcurl*This workspace (.strata/rules.toml)");
    expect(calls.find(([cmd]) => cmd === "add_rule")?.[1]).toEqual({ kind: "command", list: "deny", pattern: "curl*", workspace: WORKSPACE });
    expect(screen.getByLabelText("Pattern")).toHaveValue("");
  });

  it("says when the workspace file was edited outside Strata and trusts an allow rule again on request", async () => {
    fakeRules([{ source: "workspace", kind: "command", list: "deny", pattern: "curl*" }], [{ source: "workspace", kind: "command", list: "allow", pattern: "rm*" }]);
    const user = userEvent.setup();
    render(<RulesSettings workspace={WORKSPACE} />);
    const note = await screen.findByTestId("rules-untrusted");
    expect(note).toHaveTextContent("edited outside Strata; its allow rules are ignored until you save it here");
    expect(screen.getByTestId("rule-not-applied")).toHaveTextContent("rm*This workspace (.strata/rules.toml), not in effect");
    await user.click(screen.getByRole("button", { name: "Trust allow command rm*" }));
    await waitFor(() => expect(screen.queryByTestId("rules-untrusted")).toBeNull());
    expect(screen.getAllByTestId("rule-row").map((r) => r.textContent)).toContain("Allow commandrm*This workspace (.strata/rules.toml)Remove");
  });

  it("shows the app's refusal of a bad pattern", async () => {
    mockShell((cmd) => {
      if (cmd === "add_rule") throw { kind: "invalid_input", message: "Invalid approval rule: unclosed quote" };
      return { v: 1, kind: "rules", rules: [] };
    });
    const user = userEvent.setup();
    render(<RulesSettings workspace={null} />);
    await screen.findByText(/No rules yet/);
    await user.type(screen.getByLabelText("Pattern"), "cargo 'test");
    await user.click(screen.getByRole("button", { name: "Add rule" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Invalid approval rule: unclosed quote");
    expect(screen.getByRole("combobox", { name: "Saved in" })).toHaveTextContent("Your rules");
  });

  it("shows an MCP allow rule by its names and the launch command it holds for, and flags one no server runs now", async () => {
    const bound: RuleRef = { source: "user", kind: "mcp", list: "allow", pattern: `github/search_*@sha256:${"0f".repeat(32)}` };
    const stale: RuleRef = { source: "user", kind: "mcp", list: "allow", pattern: `docs/*@sha256:${"9e".repeat(32)}` };
    const calls = fakeRules([bound, stale, { source: "user", kind: "mcp", list: "deny", pattern: "*/delete_*" }], [], [stale]);
    const user = userEvent.setup();
    render(<RulesSettings workspace={null} />);
    const table = await screen.findByRole("table", { name: "Approval rules" });
    const rows = within(table).getAllByTestId("rule-row");
    expect(rows.map((r) => r.textContent)).toEqual([
      "Allow MCP toolgithub/search_* on the launch command sha256:0f0f0f0f0f0f…You (config.toml)Remove",
      "Allow MCP tooldocs/* on the launch command sha256:9e9e9e9e9e9e… matches nothing: no configured server runs this command nowYou (config.toml)Remove",
      "Deny MCP tool*/delete_*You (config.toml)Remove",
    ]);
    expect(within(rows[0]!).queryByTestId("rule-no-server")).toBeNull();
    // Removed by the whole stored pattern, named by its names.
    await user.click(screen.getByRole("button", { name: "Remove allow mcp tool github/search_*" }));
    await waitFor(() => expect(within(table).getAllByTestId("rule-row")).toHaveLength(2));
    expect(calls.find(([cmd]) => cmd === "remove_rule")?.[1]).toEqual({ kind: "mcp", list: "allow", pattern: bound.pattern });
  });

  it("adds an MCP rule by SERVER/TOOL with a placeholder that says the form", async () => {
    const calls = fakeRules([]);
    const user = userEvent.setup();
    render(<RulesSettings workspace={null} />);
    await screen.findByText(/No rules yet/);
    const list = screen.getByRole("combobox", { name: "Rule" });
    list.focus();
    await user.keyboard("{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{Enter}");
    expect(list).toHaveTextContent("Deny MCP tool");
    expect(screen.getByLabelText("Pattern")).toHaveAttribute("placeholder", "github/search_*");
    await user.type(screen.getByLabelText("Pattern"), "*/delete_*{Enter}");
    await screen.findByTestId("rule-row");
    expect(calls.find(([cmd]) => cmd === "add_rule")?.[1]).toEqual({ kind: "mcp", list: "deny", pattern: "*/delete_*" });
  });
});

