import { describe, expect, it } from "vitest";
import { MAX_LINK_LENGTH, classifyLink } from "./links";

describe("classifyLink", () => {
  it.each([
    ["https://example.com/a?b=c#d", "https://example.com/a?b=c#d", "example.com"],
    ["HTTP://Example.COM:8080", "http://example.com:8080/", "example.com:8080"],
    ["https://аpple.com/", "https://xn--pple-43d.com/", "xn--pple-43d.com"],
    ["https://example.com/\u202Egnp.exe", "https://example.com/%E2%80%AEgnp.exe", "example.com"],
    ["mailto:someone@example.com?subject=hi", "mailto:someone@example.com?subject=hi", "someone@example.com"],
  ])("opens %s as %s on host %s", (href, url, host) => {
    expect(classifyLink(href)).toMatchObject({ kind: "openable", url, host });
  });

  it.each([
    "javascript:window.__xss=1",
    "JaVaScRiPt:window.__xss=1",
    "java\tscript:window.__xss=1",
    " javascript:window.__xss=1",
    "data:text/html,<script>window.__xss=1</script>",
    "file:///etc/passwd",
    "vbscript:msgbox(1)",
    "tauri://localhost/index.html",
    "ftp://example.com/",
    "blob:https://example.com/1",
  ])("never opens %s", (href) => {
    const target = classifyLink(href);
    expect(target.kind).toBe("inert");
    expect(target).toMatchObject({ reason: expect.stringMatching(/links are not opened/) });
  });

  it.each(["/etc/passwd", "//example.com/x", "page.html", "#top", "%6Aavascript:x", "", null, undefined])(
    "never opens the relative or empty link %s",
    (href) => {
      expect(classifyLink(href).kind).toBe("inert");
    },
  );

  it("refuses credentials that disguise the host, and oversized URLs", () => {
    expect(classifyLink("https://trusted.example@evil.example/")).toEqual({
      kind: "inert",
      reason: "Links with a user name or password are not opened.",
    });
    expect(classifyLink(`https://example.com/${"a".repeat(MAX_LINK_LENGTH)}`).kind).toBe("inert");
  });
});
