import { describe, expect, it } from "vitest";
import { approvalAction } from "./approvalWords";

const created = "--- /dev/null\n+++ b/hello.py\n@@ -0,0 +1 @@\n+print('hi')\n";
const changed = "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-old\n+new\n";

describe("approvalAction", () => {
  it("says a write of a new file creates it, and of an existing one overwrites it, with the diff below", () => {
    expect(approvalAction("write_file", "write_file hello.py", created)).toEqual({ action: "Create hello.py", detail: created });
    expect(approvalAction("write_file", "write_file src/a.rs", changed)).toEqual({ action: "Overwrite src/a.rs", detail: changed });
    expect(approvalAction("apply_edit", "apply_edit src/a.rs", changed).action).toBe("Edit src/a.rs");
  });

  it("says a shell call as Run: and its command once, with the folder apart", () => {
    expect(approvalAction("run_shell", "run `rm -rf build` in /work/app", "rm -rf build")).toEqual({
      action: "Run: rm -rf build",
      where: "/work/app",
      detail: undefined,
    });
  });

  it("keeps a command of several lines whole below its first line", () => {
    const command = "cd src\nrm -rf gen";
    expect(approvalAction("run_shell", `run \`${command}\` in /w`, command)).toEqual({ action: "Run: cd src …", where: "/w", detail: command });
  });

  it("falls back to the summary for a tool it does not know", () => {
    expect(approvalAction("deploy", "deploy to prod", "deploy to prod")).toEqual({ action: "deploy to prod", detail: undefined });
  });
});
