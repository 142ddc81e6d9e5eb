import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { Entry } from "../state/transcript";
import { providerHealth } from "../lib/providerHealth";
import { sessionProviderName } from "../lib/profiles";
import type { ProfileView, SessionListItem } from "../api/types";
import { AppHeader } from "./AppHeader";
import { ErrorNotice, RetryNotice } from "./TranscriptNotices";

const RAW = "could not connect to 127.0.0.1:9: error sending request for url (http://127.0.0.1:9/v1/responses): tcp connect error: Connection refused (os error 111)";

const unreachable: Extract<Entry, { kind: "error" }> = {
  kind: "error",
  id: "live:1:5",
  message: RAW,
  model_error: { kind: "unreachable", host: "127.0.0.1:9", message: RAW },
  failure: {
    kind: "unreachable",
    sentence: "Can't reach 127.0.0.1:9 — is the server running?",
    recoveries: ["retry", "open_profile_settings", "switch_profile"],
    details: RAW,
  },
};

const retry = (attempt: number, settled: boolean): Extract<Entry, { kind: "retry" }> => ({
  kind: "retry",
  id: "live:1:2",
  attempt,
  of: 5,
  delay_ms: 450,
  cause: RAW,
  settled,
});

describe("ErrorNotice", () => {
  it("leads with the human sentence, offers each recovery and keeps the raw text under Details", () => {
    const onRecover = vi.fn();
    render(<ErrorNotice entry={unreachable} onRecover={onRecover} />);
    const card = screen.getByRole("alert");
    expect(within(card).getByText("Can't reach 127.0.0.1:9 — is the server running?").tagName).toBe("STRONG");
    const actions = within(card).getByRole("group", { name: "What to do" });
    const labels = within(actions)
      .getAllByRole("button")
      .map((b) => b.textContent);
    expect(labels).toEqual(["Retry", "Open profile settings", "Switch profile"]);
    fireEvent.click(within(actions).getByRole("button", { name: "Open profile settings" }));
    expect(onRecover).toHaveBeenCalledWith("open_profile_settings");
    const details = card.querySelector("details");
    expect(details?.open).toBe(false);
    expect(within(card).getByText("Details").tagName).toBe("SUMMARY");
    expect(details?.querySelector("pre")?.textContent).toBe(RAW);
    // The raw text is not the card's message.
    expect(card.querySelector("strong")?.textContent).not.toContain("tcp connect");
  });

  it("offers Compact and retry first for a context overflow", () => {
    render(
      <ErrorNotice
        entry={{
          ...unreachable,
          failure: { kind: "context_overflow", sentence: "The conversation no longer fits the model's context window.", recoveries: ["compact_and_retry", "switch_profile"], details: "x" },
        }}
        onRecover={() => {}}
      />,
    );
    const first = screen.getAllByRole("button")[0];
    expect(first?.textContent).toBe("Compact and retry");
    expect(first?.className).toContain("primary");
  });

  it("offers no recoveries on an older error or a read-only session", () => {
    render(<ErrorNotice entry={unreachable} />);
    expect(screen.queryByRole("group", { name: "What to do" })).toBeNull();
    expect(screen.getByText("Details")).toBeTruthy();
  });
});

describe("RetryNotice", () => {
  it("counts the attempt without repeating the client's text, and settles to how many retries there were", () => {
    const { rerender } = render(<RetryNotice entry={retry(3, false)} />);
    const line = screen.getByTestId("retry-line");
    expect(line.textContent).toBe("Retrying in 450 ms (attempt 3 of 5)…");
    expect(line.textContent).not.toContain("Connection refused");
    rerender(<RetryNotice entry={retry(5, true)} />);
    expect(screen.getByTestId("retry-line").textContent).toBe("Retried 4 times");
  });
});

describe("providerHealth", () => {
  const user: Entry = { kind: "user", id: "u", text: "hi" } as Entry;
  const answer: Entry = { kind: "assistant", id: "a", text: "hello", streaming: false } as Entry;
  it("is amber while a retry waits, red after a provider failure, green once an answer or a new turn comes", () => {
    expect(providerHealth([user, answer])).toBe("ok");
    expect(providerHealth([user, retry(2, false)])).toBe("retrying");
    expect(providerHealth([user, retry(5, true), unreachable])).toBe("failed");
    expect(providerHealth([user, retry(5, true), unreachable, user])).toBe("ok");
    const plain: Entry = { kind: "error", id: "e", message: "the session could not be written" };
    expect(providerHealth([user, plain])).toBe("ok");
  });
});

describe("the header chip", () => {
  const session = {
    id: "s1",
    workspace: "/w",
    provider_kind: "openai-chat",
    model: "qwen3",
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
    item_count: 1,
    compaction_count: 0,
  } as SessionListItem;
  const profiles: ProfileView[] = [
    { id: "profile-2", kind: "openai-chat", label: "Local Ollama", model: "qwen3", base_url: "http://127.0.0.1:11434/v1", has_key: false, compact_threshold: 8000 },
  ];

  it("names the profile, never its id or the provider's slug, and shows the failure on the dot", () => {
    const name = sessionProviderName(profiles, session, { provider_kind: "openai-chat", model: "qwen3", base_url: "http://127.0.0.1:11434/v1", profile: "profile-2", change: "created" });
    render(<AppHeader info={null} session={session} sidebarOpen onToggleSidebar={() => {}} sessionProvider={name} health="failed" consoleOpen={false} onToggleConsole={() => {}} onOpenSettings={() => {}} />);
    const chip = document.querySelector(".model-chip");
    expect(chip?.textContent).toContain("Local Ollama");
    expect(chip?.textContent).not.toContain("openai-chat");
    expect(chip?.textContent).not.toContain("profile-2");
    const dot = screen.getByTestId("provider-dot");
    expect(dot.className).toContain("failed");
    expect(dot.getAttribute("aria-label")).toBe("The last request to the provider failed");
  });

  it("falls back to the provider in words when no saved profile matches", () => {
    expect(sessionProviderName([], session, null)).toBe("OpenAI-compatible");
  });
});
