import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import { demoSettings, shellPage, shellSessions, shellView } from "../test/fixtures";
import { mockShell } from "../test/shell";

const FAST = { id: "fast", kind: "openai", label: "Fast GPT", model: "gpt-fast", base_url: "https://api.example.com/v1", has_key: true, compact_threshold: 8000 } as const;

/** The app on a shell with two profiles, its first session open live on a model that reasons; every call lands in `calls`. */
async function openLive() {
  const sessions = shellSessions();
  const calls: [string, Record<string, unknown>][] = [];
  const find = (id: unknown) => sessions.find((x) => x.summary.id === id)!;
  mockShell((cmd, args) => {
    calls.push([cmd, args]);
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: demoSettings.profiles[0], is_demo: true };
      case "get_settings":
        return { ...demoSettings, profiles: [...demoSettings.profiles, FAST] };
      case "list_sessions":
        return { v: 1, sessions: sessions.map((s) => s.summary), total: sessions.length };
      case "open_session":
        return { ...shellView(find(args.session_id), true), can_reason: true };
      case "open_transcript":
        return shellPage(find(args.session_id));
      case "switch_profile":
        return { ...find(args.session_id).summary, provider_kind: "openai", model: "gpt-fast" };
      case "set_reasoning":
        return args.effort;
      default:
        return null;
    }
  });
  const user = userEvent.setup();
  render(<App />);
  const title = sessions[0]!.summary.title!;
  await user.click(await screen.findByText(title));
  await screen.findByRole("heading", { level: 1, name: title });
  const composer = screen.getByRole("combobox", { name: "Message" });
  await waitFor(() => expect(composer).toBeEnabled());
  return { user, calls, composer, sessionId: sessions[0]!.summary.id };
}

describe("the composer's /model and /reasoning", () => {
  it("/model alone opens the profiles in the palette; choosing one switches the session to it", async () => {
    const { user, calls, composer, sessionId } = await openLive();
    await user.type(composer, "/model{Enter}");
    const dialog = await screen.findByRole("dialog", { name: "Switch model or profile" });
    const fast = within(dialog).getByRole("option", { name: /Fast GPT · gpt-fast/ });
    expect(fast).toHaveTextContent("https://api.example.com/v1");
    await user.keyboard("fast{Enter}");
    await waitFor(() => expect(calls).toContainEqual(["switch_profile", { session_id: sessionId, profile_id: "fast" }]));
    expect(screen.queryByRole("dialog", { name: "Switch model or profile" })).toBeNull();
  });

  it("/reasoning high sets the level at once; an unknown level is refused and sets nothing", async () => {
    const { user, calls, composer, sessionId } = await openLive();
    await user.type(composer, "/reasoning extreme{Enter}");
    expect(await screen.findByText('"extreme" is not a reasoning level: use off, low, medium, high, max.')).toBeInTheDocument();
    expect(calls.some(([cmd]) => cmd === "set_reasoning")).toBe(false);
    await user.type(composer, "/reasoning high{Enter}");
    await waitFor(() => expect(calls).toContainEqual(["set_reasoning", { session_id: sessionId, effort: "high" }]));
    await waitFor(() => expect(screen.getByRole("combobox", { name: "Reasoning" })).toHaveTextContent("High"));
  });

  it("/reasoning alone lists the five levels in the palette", async () => {
    const { user } = await openLive();
    await user.type(screen.getByRole("combobox", { name: "Message" }), "/reasoning{Enter}");
    const dialog = await screen.findByRole("dialog", { name: "Reasoning level" });
    expect(within(dialog).getAllByRole("option").map((o) => o.querySelector(".command-palette-title")?.textContent)).toEqual([
      "Reasoning: Off",
      "Reasoning: Low",
      "Reasoning: Medium",
      "Reasoning: High",
      "Reasoning: Max",
    ]);
  });
});
