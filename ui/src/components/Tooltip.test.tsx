import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { Modal } from "./Modal";
import { TipButton } from "./Tooltip";

function OpensDialog() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <TipButton tip="Settings (Ctrl+,)" onClick={() => setOpen(true)}>
        Settings
      </TipButton>
      {open && (
        <Modal title="Settings" onClose={() => setOpen(false)}>
          <p>The form</p>
        </Modal>
      )}
    </>
  );
}

describe("TipButton", () => {
  it("shows its tooltip once the pointer rests on it, described by it, and drops it when its click opens a dialog", async () => {
    const user = userEvent.setup();
    render(<OpensDialog />);
    const button = screen.getByRole("button", { name: "Settings" });
    await user.hover(button);
    const tooltip = await screen.findByRole("tooltip");
    expect(tooltip).toHaveTextContent("Settings (Ctrl+,)");
    expect(button).toHaveAttribute("aria-describedby", tooltip.id);
    await user.click(button);
    expect(screen.getByRole("dialog", { name: "Settings" })).toBeInTheDocument();
    expect(screen.queryByRole("tooltip")).toBeNull();
    // Closing the dialog with the pointer still there does not bring it back.
    await user.keyboard("{Escape}");
    expect(button).toHaveFocus();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(screen.queryByRole("tooltip")).toBeNull();
  });

  it("shows on keyboard focus, and Escape or Enter take it away", async () => {
    const user = userEvent.setup();
    render(<OpensDialog />);
    await user.tab();
    expect(await screen.findByRole("tooltip")).toHaveTextContent("Settings (Ctrl+,)");
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("tooltip")).toBeNull();
    await user.tab({ shift: true });
    await user.tab();
    expect(await screen.findByRole("tooltip")).toBeInTheDocument();
    await user.keyboard("{Enter}");
    expect(screen.queryByRole("tooltip")).toBeNull();
    expect(screen.getByRole("dialog", { name: "Settings" })).toBeInTheDocument();
  });

  it("shows why a disabled button is disabled when the pointer rests on it", async () => {
    const user = userEvent.setup();
    render(
      <TipButton tip="Wait for the turn to finish" disabled>
        Switch profile
      </TipButton>,
    );
    const button = screen.getByRole("button", { name: "Switch profile" });
    expect(button).toBeDisabled();
    await user.hover(button);
    expect(await screen.findByRole("tooltip")).toHaveTextContent("Wait for the turn to finish");
    await user.unhover(button);
    expect(screen.queryByRole("tooltip")).toBeNull();
  });
});
