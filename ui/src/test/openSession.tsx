import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "../App";
import { demoShell } from "./demoShell";

/** The app on the demo shell with the first fixture session open: the person and the sessions. */
export async function openFirstSession() {
  const sessions = demoShell();
  const user = userEvent.setup();
  render(<App />);
  const title = sessions[0]!.summary.title!;
  await user.click(await screen.findByText(title));
  await screen.findByRole("heading", { level: 1, name: title });
  return { user, sessions };
}
