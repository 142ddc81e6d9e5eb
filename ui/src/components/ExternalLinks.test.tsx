import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ExternalLinks } from "./ExternalLinks";
import { Markdown } from "./Markdown";

function setup(markdown: string, open = vi.fn(async () => {}), onError = vi.fn()) {
  const user = userEvent.setup();
  const view = render(
    <ExternalLinks open={open} onError={onError}>
      <Markdown text={markdown} />
    </ExternalLinks>,
  );
  return { user, open, onError, view };
}

const dialog = () => screen.getByRole("dialog");

describe("links in rendered text", () => {
  it("asks before opening, showing the scheme, the host and the whole URL; Cancel opens nothing", async () => {
    const { user, open } = setup("See [the docs](https://docs.example.com/guide/intro?x=1#part).");
    await user.click(screen.getByRole("link", { name: "the docs" }));
    expect(dialog()).toHaveAccessibleName("Open this link in your browser?");
    const box = within(dialog());
    expect(box.getByText("https")).toHaveClass("link-scheme");
    expect(box.getByTestId("link-host")).toHaveTextContent(/^docs\.example\.com$/);
    expect(box.getByTestId("link-url")).toHaveTextContent(/^https:\/\/docs\.example\.com\/guide\/intro\?x=1#part$/);
    expect(box.getByRole("button", { name: "Cancel" })).toHaveFocus();
    await user.click(box.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(open).not.toHaveBeenCalled();
  });

  it("opens the normalised URL only when the person confirms", async () => {
    const { user, open } = setup("[site](<HTTPS://Example.COM/a b>)");
    await user.click(screen.getByRole("link", { name: "site" }));
    await user.click(within(dialog()).getByRole("button", { name: "Open in browser" }));
    expect(open).toHaveBeenCalledExactlyOnceWith("https://example.com/a%20b");
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("closes on Escape without opening", async () => {
    const { user, open } = setup("[site](https://example.com/)");
    await user.click(screen.getByRole("link", { name: "site" }));
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(open).not.toHaveBeenCalled();
  });

  it("shows a long URL in full, so a long path or subdomain cannot push the real host out of sight", async () => {
    const url = `https://accounts.bank.example.com.${"a".repeat(60)}.evil.example/${"x/".repeat(400)}end`;
    const { user } = setup(`[bank](${url})`);
    await user.click(screen.getByRole("link", { name: "bank" }));
    expect(within(dialog()).getByTestId("link-url").textContent).toBe(url);
    expect(within(dialog()).getByTestId("link-host").textContent).toBe(new URL(url).host);
  });

  it("warns when the link's text names another host than the one it goes to", async () => {
    const { user } = setup("[https://www.paypal.com/login](https://paypal.evil.example/login)");
    await user.click(screen.getByRole("link", { name: "https://www.paypal.com/login" }));
    expect(within(dialog()).getByRole("alert")).toHaveTextContent(
      "The link's text says paypal.com, but it goes to paypal.evil.example.",
    );
  });

  it("shows a look-alike international host in punycode", async () => {
    const { user } = setup("[apple](https://аpple.com/)");
    await user.click(screen.getByRole("link", { name: "apple" }));
    expect(within(dialog()).getByTestId("link-host")).toHaveTextContent("xn--pple-43d.com");
  });

  it("escapes the URL: markup in it stays text", async () => {
    const { user } = setup('[q](https://example.com/?q="><img/src=x/onerror=alert(1)>)');
    await user.click(screen.getByRole("link", { name: "q" }));
    expect(dialog().querySelector("img")).toBeNull();
    expect(within(dialog()).getByTestId("link-url")).toHaveTextContent("https://example.com/?q=%22%3E%3Cimg/src=x/onerror=alert(1)%3E");
  });

  it("says a mailto link writes an email, to whom", async () => {
    const { user, open } = setup("[write](mailto:team@example.com)");
    await user.click(screen.getByRole("link", { name: "write" }));
    expect(dialog()).toHaveAccessibleName("Write an email?");
    expect(within(dialog()).getByTestId("link-host")).toHaveTextContent("team@example.com");
    await user.click(within(dialog()).getByRole("button", { name: "Open mail app" }));
    expect(open).toHaveBeenCalledWith("mailto:team@example.com");
  });

  it.each([
    ["javascript", "[run](javascript:window.__xss=1)"],
    ["data", "[run](data:text/html,<script>window.__xss=1</script>)"],
    ["file", "[run](file:///etc/passwd)"],
    ["vbscript", "[run](vbscript:msgbox(1))"],
    ["relative", "[run](../../etc/passwd)"],
    ["credentials", "[run](https://bank.example@evil.example/)"],
  ])("shows a %s link as inert text that opens nothing", async (_, markdown) => {
    const { user, open, view } = setup(markdown);
    expect(screen.queryByRole("link")).toBeNull();
    const text = screen.getByText("run");
    expect(text).toHaveClass("inert-link");
    expect(view.container.querySelector("[href]")).toBeNull();
    await user.click(text);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(open).not.toHaveBeenCalled();
  });

  it("never lets the webview follow any link itself, and ignores middle clicks", async () => {
    const { user, open, view } = setup("[site](https://example.com/)");
    const link = screen.getByRole("link", { name: "site" });
    const middle = new MouseEvent("auxclick", { bubbles: true, cancelable: true, button: 1 });
    link.dispatchEvent(middle);
    expect(middle.defaultPrevented).toBe(true);
    expect(screen.queryByRole("dialog")).toBeNull();
    // An anchor the markdown renderer did not make is caught too.
    const stray = document.createElement("a");
    stray.setAttribute("href", "javascript:window.__xss=1");
    stray.textContent = "stray";
    view.container.append(stray);
    const click = new MouseEvent("click", { bubbles: true, cancelable: true });
    stray.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    expect(screen.queryByRole("dialog")).toBeNull();
    await user.click(link);
    expect(screen.getByRole("dialog")).toBeInTheDocument();
    expect(open).not.toHaveBeenCalled();
  });

  it("reports a failure to open", async () => {
    const failure = new Error("no browser");
    const { user, onError } = setup("[site](https://example.com/)", vi.fn(async () => Promise.reject(failure)));
    await user.click(screen.getByRole("link", { name: "site" }));
    await user.click(within(dialog()).getByRole("button", { name: "Open in browser" }));
    await vi.waitFor(() => expect(onError).toHaveBeenCalledWith(failure));
  });
});
