import { describe, expect, it } from "vitest";
import { approvalKey } from "./useApprovalKeys";

const press = (key: string) => new KeyboardEvent("keydown", { key });

describe("approvalKey", () => {
  it("answers always allow with R only when it is offered", () => {
    expect(approvalKey(press("r"), null, true)).toBe("always_allow");
    expect(approvalKey(press("R"), null, true)).toBe("always_allow");
    expect(approvalKey(press("r"), null, false)).toBeNull();
    expect(approvalKey(press("r"), null)).toBeNull();
    expect(approvalKey(press("a"), null, true)).toBe("allow_for_session");
  });
});
