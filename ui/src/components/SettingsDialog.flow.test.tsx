import { mockShell } from "../test/shell";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Settings } from "../api/types";
import { SettingsDialog } from "./SettingsDialog";

// Each render of the compaction section reads every policy's hint: a counter of whole-section renders.
const hintReads = vi.hoisted(() => ({ count: 0 }));
vi.mock("../console/steps", async (importOriginal) => {
  const real = await importOriginal<typeof import("../console/steps")>();
  return {
    ...real,
    POLICY_HINT: new Proxy(real.POLICY_HINT, {
      get(target, key, receiver) {
        hintReads.count += 1;
        return Reflect.get(target, key, receiver);
      },
    }),
  };
});

const KINDS = [
  { kind: "openai-responses", label: "OpenAI Responses", default_model: "gpt-5.4", default_base_url: "https://api.openai.com/v1" },
  { kind: "openai-chat", label: "OpenAI-compatible Chat Completions", default_model: "gpt-4.1-mini", default_base_url: "https://api.openai.com/v1" },
  { kind: "anthropic", label: "Anthropic Messages", default_model: "claude-sonnet-4-5", default_base_url: "https://api.anthropic.com/v1" },
  { kind: "demo", label: "Offline demo", default_model: "strata-demo" },
];

const settings: Settings = {
  profiles: [
    { id: "openai", kind: "openai-responses", label: "OpenAI", model: "gpt-5.4", has_key: false, context_window: 400000, compact_threshold: 8000 },
    { id: "demo", kind: "demo", label: "Offline demo", model: "strata-demo", has_key: false, compact_threshold: 8000 },
  ],
  active_profile: "openai",
  approval_policy: "ask",
  theme: "system",
  compaction_policy: "layered",
  sandbox: "off",
  sandbox_network: "off",
  sandbox_allow_domains: [],
};

function shell(handle: (cmd: string, args: Record<string, unknown>) => unknown = () => null) {
  mockShell((cmd, args) => (cmd === "provider_kinds" ? KINDS : handle(cmd, args)));
}

describe("the provider drop-down", () => {
  it("is the app's own listbox, chosen with the keyboard, and Escape closes the list before the dialog", async () => {
    shell();
    const onClose = vi.fn();
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={async () => {}} onClose={onClose} />);
    expect(document.querySelector("select")).toBeNull();
    const provider = await screen.findByRole("combobox", { name: "Provider" });
    await waitFor(() => expect(provider).toHaveTextContent("OpenAI Responses"));
    provider.focus();
    await user.keyboard("{ArrowDown}");
    expect(provider).toHaveAttribute("aria-expanded", "true");
    const list = screen.getByRole("listbox", { name: "Provider" });
    expect(within(list).getByRole("option", { name: "OpenAI Responses" })).toHaveAttribute("aria-selected", "true");
    await user.keyboard("{ArrowDown}{ArrowDown}");
    expect(provider.getAttribute("aria-activedescendant")).toBe(within(list).getByRole("option", { name: "Anthropic Messages" }).id);
    await user.keyboard("{Escape}");
    expect(provider).toHaveAttribute("aria-expanded", "false");
    expect(onClose).not.toHaveBeenCalled();
    // Typing jumps to an option by its first letters; Enter chooses it.
    await user.keyboard("{Enter}an{Enter}");
    expect(provider).toHaveTextContent("Anthropic Messages");
    expect(screen.getByLabelText("Model")).toHaveValue("claude-sonnet-4-5");
    expect(document.activeElement).toBe(provider);
  });
});

describe("keys", () => {
  it("marks the profiles without a key", async () => {
    shell();
    render(<SettingsDialog settings={settings} onSave={async () => {}} onClose={() => {}} />);
    const tabs = screen.getAllByRole("button", { pressed: undefined }).filter((b) => b.className.includes("profile-tab"));
    expect(tabs.map((t) => t.textContent)).toEqual(["OpenAIActiveNo key", "Offline demo"]);
  });

  it("takes a new profile's key before it is saved and stores it with the one Save", async () => {
    shell();
    const onSave = vi.fn(async () => {});
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={onSave} onClose={() => {}} />);
    await user.click(screen.getByRole("button", { name: "+ Add profile" }));
    const key = screen.getByLabelText(/API key/);
    expect(key).toBeEnabled();
    expect(screen.queryByRole("button", { name: "Store key" })).toBeNull();
    await user.type(key, "sk-new-profile-key-42");
    expect(screen.getByText("This key is stored when you save the settings.")).toBeInTheDocument();
    expect(document.body.innerHTML).not.toContain("sk-new-profile-key-42");
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).toHaveBeenCalledTimes(1);
    const [saved, keys] = onSave.mock.calls[0] as unknown as [Settings, unknown];
    expect(saved.profiles.map((p) => p.id)).toEqual(["openai", "demo", "profile-3"]);
    expect(keys).toEqual([{ profile_id: "profile-3", key: "sk-new-profile-key-42" }]);
  });

  it("keeps focus on Store key while it stores, and Escape then closes Settings", async () => {
    let finish: () => void = () => {};
    shell((cmd) => (cmd === "set_api_key" ? new Promise<null>((resolve) => (finish = () => resolve(null))) : null));
    const onClose = vi.fn();
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={async () => {}} onClose={onClose} />);
    await user.type(screen.getByLabelText(/API key/), "sk-secret-123");
    const store = screen.getByRole("button", { name: "Store key" });
    await user.click(store);
    expect(store).not.toBeDisabled();
    expect(store).toHaveAttribute("aria-disabled", "true");
    expect(document.activeElement).toBe(store);
    await act(async () => finish());
    expect(await screen.findByText("Key stored. It is never shown again.")).toBeInTheDocument();
    expect(document.activeElement).not.toBe(document.body);
    // Wherever focus is, Escape is the dialog's.
    (document.activeElement as HTMLElement).blur();
    await user.keyboard("{Escape}");
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});

describe("rendering while typing", () => {
  it("does not render the other sections on every keystroke in a profile field", async () => {
    shell();
    const user = userEvent.setup();
    render(<SettingsDialog settings={settings} onSave={async () => {}} onClose={() => {}} />);
    await screen.findByRole("combobox", { name: "Provider" });
    const model = screen.getByLabelText("Model");
    hintReads.count = 0;
    await user.type(model, "-turbo");
    expect(model).toHaveValue("gpt-5.4-turbo");
    expect(hintReads.count).toBe(0);
  });
});
