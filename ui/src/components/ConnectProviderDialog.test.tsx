import { mockShell } from "../test/shell";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Settings } from "../api/types";
import { ConnectProviderDialog } from "./ConnectProviderDialog";

const settings: Settings = {
  profiles: [{ id: "demo", kind: "demo", label: "Offline demo", model: "strata-demo", has_key: false, compact_threshold: 8000 }],
  active_profile: "demo",
  approval_policy: "ask",
  theme: "system",
  compaction_policy: "layered",
  sandbox: "off",
  sandbox_network: "off",
  sandbox_allow_domains: [],
};

const KEY = "sk-typed-key-0042";

describe("Connect a provider", () => {
  it("is a focused flow: a compatible server, its models from the server, a tested key, one Save that makes it active", async () => {
    const calls: [string, Record<string, unknown>][] = [];
    mockShell((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "list_models") {
        const { draft } = args as { draft: { api_key?: string } };
        return draft.api_key === KEY
          ? { offered: true, models: ["llama3.2", "qwen3:8b"] }
          : { offered: true, models: [], failure: { kind: "key_rejected", sentence: "This key was rejected. Check it in the profile's settings.", recoveries: [], details: "HTTP 401: bad key" } };
      }
      if (cmd === "test_connection") {
        const { draft } = args as { draft: { model: string; api_key?: string } };
        return draft.api_key === KEY
          ? { endpoint: "http://127.0.0.1:11434/v1", model: draft.model, duration_ms: 42 }
          : { endpoint: "x", model: draft.model, duration_ms: 0, failure: { kind: "key_rejected", sentence: "This key was rejected. Check it in the profile's settings.", recoveries: [], details: "HTTP 401: bad key" } };
      }
      return null;
    });
    const onSave = vi.fn(async () => {});
    const onClose = vi.fn();
    const user = userEvent.setup();
    render(<ConnectProviderDialog settings={settings} onSave={onSave} onClose={onClose} />);
    // Not the whole Settings form.
    expect(screen.queryByRole("group", { name: "Approval policy" })).toBeNull();
    expect(screen.getAllByRole("radio").map((r) => r.closest("label")?.querySelector("strong")?.textContent)).toEqual(["OpenAI", "Anthropic", "A compatible server"]);
    await user.click(screen.getByRole("radio", { name: /A compatible server/ }));
    expect(screen.getByLabelText("Name")).toHaveValue("Local server");
    await user.type(screen.getByLabelText("Base URL"), "http://127.0.0.1:11434/v1");
    await user.type(screen.getByLabelText("API key (if the server needs one)"), "sk-wrong");
    await user.click(screen.getByRole("button", { name: "Test connection" }));
    await waitFor(() => expect(screen.getByTestId("connection-result")).toHaveTextContent("This key was rejected."));
    expect(screen.getByLabelText("Model")).toHaveValue("");
    await user.clear(screen.getByLabelText("API key (if the server needs one)"));
    await user.type(screen.getByLabelText("API key (if the server needs one)"), KEY);
    await user.click(screen.getByRole("button", { name: "Test connection" }));
    await waitFor(() => expect(screen.getByTestId("connection-result")).toHaveTextContent("✓ Connected: llama3.2 answered in 42 ms."));
    expect(screen.getByLabelText("Model")).toHaveValue("llama3.2");
    expect(screen.getByText("2 models on this server; type to pick one.")).toBeInTheDocument();
    expect(document.body.innerHTML).not.toContain(KEY);
    const tested = calls.filter(([cmd]) => cmd === "test_connection").at(-1)?.[1] as { draft: Record<string, unknown> };
    expect(tested.draft).toEqual({ kind: "openai-chat", model: "llama3.2", base_url: "http://127.0.0.1:11434/v1", api_key: KEY });
    await user.clear(screen.getByLabelText("Name"));
    await user.type(screen.getByLabelText("Name"), "Home Ollama");
    await user.click(screen.getByRole("button", { name: "Save and use" }));
    expect(onSave).toHaveBeenCalledTimes(1);
    const [saved, keys] = onSave.mock.calls[0] as unknown as [Settings, unknown];
    expect(saved.active_profile).toBe("profile-2");
    expect(saved.profiles[1]).toMatchObject({ id: "profile-2", label: "Home Ollama", kind: "openai-chat", model: "llama3.2", base_url: "http://127.0.0.1:11434/v1" });
    expect(keys).toEqual([{ profile_id: "profile-2", key: KEY }]);
    expect(onClose).toHaveBeenCalled();
  });

  it("asks for what is missing instead of saving", async () => {
    mockShell(() => null);
    const onSave = vi.fn(async () => {});
    const user = userEvent.setup();
    render(<ConnectProviderDialog settings={settings} onSave={onSave} onClose={() => {}} />);
    await user.click(screen.getByRole("button", { name: "Save and use" }));
    expect(onSave).not.toHaveBeenCalled();
    expect(screen.getByRole("alert")).toHaveTextContent("Paste your API key.");
  });
});
