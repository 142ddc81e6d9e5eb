import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { listedSession } from "../test/sidebar";
import { ConversationHeader, HELD_NOTICE } from "./ConversationHeader";

const LONG_TITLE = "Give me a tour of this project and explain how the build and the tests fit in";

const NO_INFO = { profile: null, profileName: null, policy: null };

function renderHeader(live: boolean) {
  const onReload = vi.fn();
  render(
    <ConversationHeader summary={listedSession("s1", LONG_TITLE)} live={live} running={false} onSwitchProfile={vi.fn()} onReload={onReload} info={NO_INFO} />,
  );
  return { onReload };
}

describe("ConversationHeader", () => {
  it("gives the title its whole text as a tooltip, so a title the ellipsis cuts can still be read", () => {
    renderHeader(true);
    const heading = screen.getByRole("heading", { level: 1, name: LONG_TITLE });
    expect(heading).toHaveAttribute("title", LONG_TITLE);
  });

  it("held by another process: a compact badge, the status named with the whole reason, Check again, and no profile switch", async () => {
    const { onReload } = renderHeader(false);
    const status = screen.getByRole("status", { name: HELD_NOTICE });
    expect(status).toHaveTextContent(/^Read-onlyCheck again$/);
    expect(screen.getByRole("button", { name: "Switch profile" })).toBeDisabled();
    await userEvent.setup().click(screen.getByRole("button", { name: "Check again" }));
    expect(onReload).toHaveBeenCalledOnce();
  });

  it("live: no read-only notice", () => {
    renderHeader(true);
    expect(screen.queryByRole("status")).toBeNull();
    expect(screen.queryByRole("button", { name: "Check again" })).toBeNull();
    expect(screen.getByRole("button", { name: "Switch profile" })).toBeEnabled();
  });

  it("keeps the session's facts in an info popover, not the transcript: policy, profile, created, folder and a fork's parent", async () => {
    const user = userEvent.setup();
    const onOpenParent = vi.fn();
    const fork = listedSession("s2", `${LONG_TITLE} (fork)`, { parent_session_id: "s1", point: { kind: "before_compaction", number: 1 } });
    render(
      <ConversationHeader
        summary={fork}
        live
        running={false}
        onSwitchProfile={vi.fn()}
        onReload={vi.fn()}
        info={{
          profile: { provider_kind: "demo", model: "strata-demo", profile: "demo", change: "created" },
          profileName: "Demo",
          policy: "layered",
          approval: "auto",
          sandbox: "workspace-write",
          network: "network allow-list (crates.io, *.npmjs.org)",
          parentTitle: LONG_TITLE,
          onOpenParent,
        }}
      />,
    );
    const button = screen.getByRole("button", { name: "Session info" });
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("dialog")).toBeNull();
    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "true");
    const info = screen.getByRole("dialog", { name: "Session info" });
    expect(button).toHaveAttribute("aria-controls", info.id);
    expect(within(info).getByTestId("info-policy")).toHaveTextContent(/^Layered/);
    expect(within(info).getByTestId("info-approval")).toHaveTextContent("auto · sandbox workspace-write — Commands write only inside the workspace");
    expect(within(info).getByTestId("info-network")).toHaveTextContent("network allow-list (crates.io, *.npmjs.org)");
    expect(within(info).getByTestId("info-profile")).toHaveTextContent("Demo · strata-demo");
    expect(within(info).getByTestId("info-folder")).toHaveTextContent(fork.workspace);
    expect(within(info).getByTestId("info-created").querySelector("time")).toHaveAttribute("dateTime", fork.created_at);
    expect(within(info).getByTestId("info-parent")).toHaveTextContent(/before its compaction #1/);
    // Escape closes it and gives focus back to its button.
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(button).toHaveFocus();
    expect(button).toHaveAttribute("aria-expanded", "false");
    // The parent's link opens it.
    await user.click(button);
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: LONG_TITLE }));
    expect(onOpenParent).toHaveBeenCalledWith("s1");
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
