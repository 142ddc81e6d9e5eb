import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { listedSession } from "../test/sidebar";
import { ConversationHeader } from "./ConversationHeader";

const LONG_TITLE = "Give me a tour of this project and explain how the build and the tests fit in";

function renderHeader(live: boolean) {
  const onResume = vi.fn();
  render(
    <ConversationHeader summary={listedSession("s1", LONG_TITLE)} live={live} running={false} onSwitchProfile={vi.fn()} onResume={onResume} />,
  );
  return { onResume };
}

describe("ConversationHeader", () => {
  it("gives the title its whole text as a tooltip, so a title the ellipsis cuts can still be read", () => {
    renderHeader(true);
    const heading = screen.getByRole("heading", { level: 1, name: LONG_TITLE });
    expect(heading).toHaveAttribute("title", LONG_TITLE);
  });

  it("read-only: shows a compact badge, names the status with the whole notice, and Resume resumes", async () => {
    const { onResume } = renderHeader(false);
    const status = screen.getByRole("status", { name: "Read-only: browsing the session file." });
    expect(status).toHaveTextContent(/^Read-onlyResume session$/);
    await userEvent.setup().click(screen.getByRole("button", { name: "Resume session" }));
    expect(onResume).toHaveBeenCalledOnce();
  });

  it("live: no read-only notice", () => {
    renderHeader(true);
    expect(screen.queryByRole("status")).toBeNull();
    expect(screen.queryByRole("button", { name: "Resume session" })).toBeNull();
  });
});
