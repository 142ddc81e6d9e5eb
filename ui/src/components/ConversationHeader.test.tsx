import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { listedSession } from "../test/sidebar";
import { ConversationHeader, HELD_NOTICE } from "./ConversationHeader";

const LONG_TITLE = "Give me a tour of this project and explain how the build and the tests fit in";

function renderHeader(live: boolean) {
  const onReload = vi.fn();
  render(
    <ConversationHeader summary={listedSession("s1", LONG_TITLE)} live={live} running={false} onSwitchProfile={vi.fn()} onReload={onReload} />,
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
});
