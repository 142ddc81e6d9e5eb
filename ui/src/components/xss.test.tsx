// The shared hostile payloads (tests/fixtures/xss-payloads.json, also used by
// the e2e suite in the real app) rendered by every component that shows
// model, tool or file text. Nothing may come out as live markup: no script,
// frame, event handler, fetchable source or unsafe link, and no sentinel set.
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import fixture from "../../../tests/fixtures/xss-payloads.json";
import { findXssViolations } from "../../../tests/fixtures/xss-audit.mjs";
import type { SessionListItem } from "../api/types";
import { CompactionCard } from "../console/Compactions";
import { consoleViews } from "../test/consoleFixtures";
import { listedSession, sidebarHandlers } from "../test/sidebar";
import { ExternalLinks } from "./ExternalLinks";
import { Markdown } from "./Markdown";
import { AssistantMessage, UserMessage } from "./Messages";
import { SessionSidebar } from "./SessionSidebar";
import { ToolCallCard } from "./ToolCallCard";
import { ErrorNotice } from "./TranscriptNotices";

const BEACON = "http://127.0.0.1:9/beacon";
const payloads = fixture.payloads.map((p) => ({
  ...p,
  text: p.payload.replaceAll("{{BEACON}}", BEACON).replaceAll("{{BEACON_HOST}}", "127.0.0.1:9"),
}));
const everything = payloads.map((p) => p.text).join("\n\n");

declare global {
  interface Window {
    __xss?: unknown;
  }
}

function expectClean(container: HTMLElement) {
  expect(findXssViolations(container)).toEqual([]);
  expect(window.__xss).toBeUndefined();
}

afterEach(() => {
  delete window.__xss;
});

describe("hostile text in the UI", () => {
  it("has at least 50 payloads covering every family of attack", () => {
    expect(payloads.length).toBeGreaterThanOrEqual(50);
    expect(new Set(payloads.map((p) => p.category))).toEqual(
      new Set(["script", "event", "link", "svg", "frame", "meta", "form", "css", "html-in-md", "md-trick", "obfuscation", "mutation"]),
    );
  });

  it("the audit itself catches live markup (so a clean result means something)", () => {
    const probe = document.createElement("div");
    probe.innerHTML = '<img src=x onerror=1><a href="javascript:1">x</a><iframe></iframe><p style="background:url(x)">';
    expect(findXssViolations(probe)).toHaveLength(6);
  });

  it.each(payloads.map((p) => [p.id, p.text]))("markdown renders %s inertly", (_, text) => {
    const { container } = render(
      <ExternalLinks open={async () => {}} onError={() => {}}>
        <Markdown text={text} />
      </ExternalLinks>,
    );
    expectClean(container);
  });

  it("shows raw HTML in markdown as its text", () => {
    const { container } = render(<Markdown text={payloads.find((p) => p.id === "script-plain")!.text} />);
    expect(container).toHaveTextContent("<script>window.__xss='script-plain'</script>");
  });

  it("renders every payload at once in user and assistant messages", () => {
    const { container } = render(
      <>
        <UserMessage entry={{ kind: "user", id: "u", text: everything }} />
        <AssistantMessage entry={{ kind: "assistant", id: "a", text: everything, streaming: false }} />
      </>,
    );
    expectClean(container);
    expect(container.querySelector(".user-text")?.textContent).toBe(everything);
  });

  it("renders every payload in tool arguments, outputs, approvals and errors", () => {
    const args = JSON.stringify({ command: everything, path: everything });
    const { container } = render(
      <>
        <ToolCallCard
          tool={{ id: "t1", call_id: "c1", name: "run_shell", arguments: args, status: "awaiting_approval", approval: { summary: everything, detail: everything } }}
          onDecide={() => {}}
        />
        <ToolCallCard tool={{ id: "t2", call_id: "c2", name: everything, arguments: args, output: { preview: everything, chars: everything.length }, status: "error" }} />
        <ErrorNotice entry={{ kind: "error", id: "e", message: everything }} />
      </>,
    );
    expectClean(container);
  });

  it("renders every payload as session titles and file names in the sidebar", () => {
    const sessions: SessionListItem[] = payloads.map((p, index) => ({
      ...listedSession(`s${index}`, p.text),
      workspace: `/home/ana/${p.text}`,
      provider_kind: "openai-responses",
      model: p.text,
    }));
    // The sidebar is virtualised: a few sessions at a time, so every row is in the DOM.
    const GROUP = 10;
    for (let start = 0; start < sessions.length; start += GROUP) {
      const group = sessions.slice(start, start + GROUP);
      const { container, unmount } = render(
        <SessionSidebar sessions={group} activeId={group[0]!.id} query="" loading={false} {...sidebarHandlers()} />,
      );
      expect(container.querySelectorAll(".session-open")).toHaveLength(group.length);
      expectClean(container);
      unmount();
    }
  });

  it("renders every payload as a compaction summary", async () => {
    const view = { ...consoleViews[0]!, summary_model_text: everything };
    const figures = { before: { tokens: 2, estimated: true }, after: { tokens: 1, estimated: true }, freed: { tokens: 1, estimated: true } };
    const { container } = render(<CompactionCard view={view} number={1} of={1} focused={false} onReveal={() => {}} figures={figures} />);
    await userEvent.click(screen.getByRole("button", { name: /Summary sent to the model/ }));
    expect(screen.getByTestId("compaction-summary").textContent).toBe(everything);
    expectClean(container);
  });
});
