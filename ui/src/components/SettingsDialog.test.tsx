import { mockShell } from "../test/shell";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Settings } from "../api/types";
import { SETTINGS_SECTIONS } from "../commands/appActions";
import { SettingsDialog } from "./SettingsDialog";

const settings: Settings = {
  profiles: [
    { id: "openai", kind: "openai-responses", label: "OpenAI", model: "gpt-5.4", has_key: false, context_window: 400000, compact_threshold: 8000 },
  ],
  active_profile: "openai",
  approval_policy: "ask",
  theme: "system",
  compaction_policy: "layered",
  sandbox: "off",
  sandbox_network: "off",
  sandbox_allow_domains: [],
};

describe("SettingsDialog", () => {
  it("has no section the command palette cannot reach", () => {
    const imports = { view: { settings: { asked: true, tools: [], extra_paths: [] }, found: { codex: 0, claude_code: 0, copilot_cli: 0 } }, onSave: () => {} };
    render(<SettingsDialog settings={settings} onSave={async () => {}} onClose={() => {}} workspace="/work/app" imports={imports} />);
    const reachable: string[] = SETTINGS_SECTIONS.map((section) => section.heading);
    // As the palette finds a section: its first heading or legend.
    const headings = Array.from(document.querySelectorAll(".settings-section")).map((section) => section.querySelector("h3, legend")?.textContent?.trim() ?? "");
    expect([...headings].sort()).toEqual([...reachable].sort());
  });

  it("says beside the approval policy that shell commands run with the person's rights, unsandboxed", () => {
    render(<SettingsDialog settings={settings} onSave={async () => {}} onClose={() => {}} />);
    const policy = screen.getByRole("group", { name: "Approval policy and sandbox" });
    expect(policy).toContainElement(screen.getByTestId("settings-shell-warning"));
    expect(screen.getByTestId("settings-shell-warning")).toHaveTextContent(
      "Not sandboxed: a shell command you approve, or that runs under Auto, runs as you, with your rights, outside any sandbox.",
    );
    expect(screen.getByRole("radio", { name: /Auto/ }).closest("label")).toHaveTextContent("shell commands included");
  });

  it("shows a clear message for invalid input and saves nothing", async () => {
    const onSave = vi.fn(async () => {});
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={onSave} onClose={() => {}} />);
    const window = screen.getByLabelText("Context window (tokens)");
    await user.clear(window);
    await user.type(window, "8k");
    await user.clear(screen.getByLabelText("Base URL"));
    await user.type(screen.getByLabelText("Base URL"), "not a url");
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).not.toHaveBeenCalled();
    expect(screen.getByRole("alert")).toHaveTextContent("nothing was saved");
    expect(window).toHaveAttribute("aria-invalid", "true");
    expect(window).toHaveAccessibleDescription("Enter a whole number of tokens, or leave it empty.");
    expect(screen.getByLabelText("Base URL")).toHaveAccessibleDescription(/http:\/\/ or https:\/\//);
  });

  it("saves numbers, the policy and the theme when everything is valid", async () => {
    const onSave = vi.fn(async () => {});
    const onClose = vi.fn();
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={onSave} onClose={onClose} />);
    const window = screen.getByLabelText("Context window (tokens)");
    await user.clear(window);
    await user.type(window, "120000");
    await user.click(screen.getByRole("radio", { name: /Read-only/ }));
    await user.click(screen.getByRole("radio", { name: "Dark" }));
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).toHaveBeenCalledWith(
      {
        ...settings,
        approval_policy: "read-only",
        theme: "dark",
        profiles: [{ ...settings.profiles[0], context_window: 120000 }],
      },
      [],
    );
    expect(onClose).toHaveBeenCalled();
  });

  it("shows the sandbox beside the approval policy, warns only when it is off, and saves the chosen one", async () => {
    const onSave = vi.fn(async () => {});
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={onSave} onClose={vi.fn()} />);
    const group = screen.getByRole("radiogroup", { name: "Shell sandbox for new sessions" });
    expect(within(group).getByRole("radio", { name: "No sandbox" })).toBeChecked();
    expect(screen.getByTestId("settings-shell-warning")).toHaveTextContent("Not sandboxed");
    await user.click(within(group).getByRole("radio", { name: "Workspace (default)" }));
    expect(screen.queryByTestId("settings-shell-warning")).not.toBeInTheDocument();
    expect(screen.getByTestId("settings-shell-sandboxed")).toHaveTextContent("Commands write only inside the workspace and their temp folder.");
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).toHaveBeenCalledWith({ ...settings, sandbox: "workspace-write" }, []);
  });

  it("says once, beside a chosen sandbox, why this computer cannot have it and that every command asks first", async () => {
    const user = userEvent.setup();
    const reason = "the workspace-write sandbox is unavailable (this kernel lacks Landlock ABI 3 or later (this kernel: none))";
    render(<SettingsDialog settings={{ ...settings, sandbox: "workspace-write" }} sandboxUnavailable={reason} onSave={vi.fn(async () => {})} onClose={vi.fn()} />);
    expect(screen.getByRole("note")).toHaveTextContent(`Not available here: ${reason}. Every shell command asks first.`);
    expect(screen.getAllByTestId("sandbox-unavailable")).toHaveLength(1);
    await user.click(within(screen.getByRole("radiogroup", { name: "Shell sandbox for new sessions" })).getByRole("radio", { name: "No sandbox" }));
    expect(screen.queryByTestId("sandbox-unavailable")).not.toBeInTheDocument();
    expect(screen.getByTestId("settings-shell-warning")).toHaveTextContent("Not sandboxed");
  });

  it("offers the network under the sandbox, edits the allowed domains one a line, and saves them as a list", async () => {
    const onSave = vi.fn(async () => {});
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={onSave} onClose={vi.fn()} />);
    const network = () => within(screen.getByRole("radiogroup", { name: "Network for new sessions" }));
    expect(network().getByRole("radio", { name: "Allowed domains…" })).toBeDisabled();
    await user.click(within(screen.getByRole("radiogroup", { name: "Shell sandbox for new sessions" })).getByRole("radio", { name: "Workspace (default)" }));
    await user.click(network().getByRole("radio", { name: "Allowed domains…" }));
    await user.type(screen.getByRole("textbox", { name: "Allowed domains" }), "crates.io{Enter}*.npmjs.org{Enter}crates.io");
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).toHaveBeenCalledWith(
      { ...settings, sandbox: "workspace-write", sandbox_network: "allow-list", sandbox_allow_domains: ["crates.io", "*.npmjs.org"] },
      [],
    );
  });

  it("shows the shell's invalid_input message and stays open", async () => {
    const onSave = vi.fn(async () => {
      throw { kind: "invalid_input", message: "The base URL is unreachable." };
    });
    const onClose = vi.fn();
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={onSave} onClose={onClose} />);
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("The base URL is unreachable.");
    expect(onClose).not.toHaveBeenCalled();
  });

  it("stores an API key through set_api_key and never shows it again", async () => {
    const calls: [string, unknown][] = [];
    mockShell((cmd, args) => {
      calls.push([cmd, args]);
      return null;
    });
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={async () => {}} onClose={() => {}} />);
    const key = screen.getByLabelText(/API key/);
    expect(key).toHaveAttribute("type", "password");
    await user.type(key, "sk-secret-123");
    // Typed, the key is the field's value, never an attribute in the DOM.
    expect(key).toHaveValue("sk-secret-123");
    expect(document.body.innerHTML).not.toContain("sk-secret-123");
    await user.click(screen.getByRole("button", { name: "Store key" }));
    expect(await screen.findByText("Key stored. It is never shown again.")).toBeInTheDocument();
    expect(calls.filter(([cmd]) => !["provider_kinds", "list_rules", "list_mcp_servers"].includes(cmd))).toEqual([["set_api_key", { profile_id: "openai", key: "sk-secret-123" }]]);
    expect(key).toHaveValue("");
    expect(document.body.textContent).not.toContain("sk-secret-123");
    expect(screen.getByText("Configured")).toBeInTheDocument();
  });

  it("says a key is configured without claiming where it comes from", () => {
    // `has_key` is true for a key in the keychain, a key file or an environment variable alike.
    const withKey: Settings = { ...settings, profiles: [{ ...settings.profiles[0]!, has_key: true }] };
    render(<SettingsDialog settings={withKey} onSave={async () => {}} onClose={() => {}} />);
    const hint = document.getElementById("profile-api-key-status");
    expect(hint).toHaveTextContent("A key is configured for this profile.");
    expect(hint?.textContent).not.toMatch(/keychain/i);
    expect(screen.getByLabelText(/API key/)).toHaveAttribute("placeholder", expect.not.stringMatching(/stored/i));
    expect(screen.queryByText("Stored")).toBeNull();
    expect(screen.getByText("Configured")).toBeInTheDocument();
  });
});

describe("SettingsDialog context management", () => {
  function backend(checked: string[]) {
    mockShell((cmd, args) => {
      if (cmd === "provider_kinds") return [];
      if (cmd === "check_threshold") {
        const { threshold } = args as { threshold: string };
        checked.push(threshold);
        if (threshold === "80%") return { setting: "80%", tokens: 320_000, context_window: 400_000 };
        throw { kind: "invalid_input", message: `invalid threshold "${threshold}": use 80%, 12000 or left:20000` };
      }
      throw { kind: "internal", message: `unexpected ${cmd}` };
    });
  }

  it("checks the threshold in Rust as it is typed and saves the policy and threshold", async () => {
    const checked: string[] = [];
    backend(checked);
    const onSave = vi.fn(async () => {});
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={onSave} onClose={() => {}} />);
    const group = screen.getByRole("group", { name: "Context management" });
    await user.click(within(group).getByRole("radio", { name: /^Base/ }));
    const threshold = within(group).getByLabelText("Compaction threshold");
    await user.type(threshold, "80%");
    await waitFor(() => expect(screen.getByTestId("threshold-note")).toHaveTextContent("Compacts at 320,000 tokens of the active profile's 400,000-token window."));
    expect(checked.at(-1)).toBe("80%");
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).toHaveBeenCalledWith(expect.objectContaining({ compaction_policy: "base", compact_threshold: "80%" }), []);
  });

  it("shows Rust's message for an invalid threshold and saves nothing", async () => {
    backend([]);
    const onSave = vi.fn(async () => {});
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={onSave} onClose={() => {}} />);
    const threshold = screen.getByLabelText("Compaction threshold");
    await user.type(threshold, "eighty");
    await waitFor(() => expect(threshold).toHaveAttribute("aria-invalid", "true"));
    expect(screen.getByTestId("threshold-note")).toHaveTextContent('invalid threshold "eighty"');
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).not.toHaveBeenCalled();
    expect(screen.getByRole("alert")).toHaveTextContent("Compaction threshold: invalid threshold");
  });
});
