import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { WorkspaceNetworkView } from "../bindings/WorkspaceNetworkView";
import { mockShell } from "../test/shell";
import { WorkspaceNetworkSettings } from "./WorkspaceNetworkSettings";

const WORKSPACE = "/work/app";
const FILE = `${WORKSPACE}/.strata/network.toml`;

/** A fake app keeping one network file as Rust does; a domain with a space is refused like the proxy's parser refuses it. */
function fakeFile(start: Partial<WorkspaceNetworkView> = {}) {
  const calls: [string, Record<string, unknown>][] = [];
  let file: WorkspaceNetworkView = { file: FILE, exists: false, network: null, allow_domains: [], applied: false, ...start };
  mockShell((cmd, args) => {
    calls.push([cmd, args]);
    if (cmd === "pick_workspace") return "/work/other";
    if (cmd === "get_workspace_network") return args.workspace === WORKSPACE ? file : { ...file, file: "/work/other/.strata/network.toml", exists: false, network: null, allow_domains: [] };
    if (cmd === "save_workspace_network") {
      const domains = args.allow_domains as string[];
      const bad = domains.find((d) => d.includes(" "));
      if (bad) throw { kind: "invalid_input", message: `Nothing was saved: "${bad}" is not a domain, a *.domain or an IP address.` };
      file = { file: FILE, exists: true, network: args.network as WorkspaceNetworkView["network"], allow_domains: domains, applied: true };
      return file;
    }
    throw { kind: "internal", message: `unexpected ${cmd}` };
  });
  return calls;
}

const saves = (calls: [string, Record<string, unknown>][]) => calls.filter(([cmd]) => cmd === "save_workspace_network").map(([, args]) => args);

describe("WorkspaceNetworkSettings", () => {
  it("shows a file Strata saved as applied, its choice and domains in the form", async () => {
    fakeFile({ exists: true, network: "allow-list", allow_domains: ["crates.io", "*.npmjs.org"], applied: true });
    render(<WorkspaceNetworkSettings workspace={WORKSPACE} />);
    const state = await screen.findByTestId("wsnet-state");
    expect(state).toHaveTextContent("Applied");
    expect(state).toHaveTextContent("allowed domains (crates.io, *.npmjs.org)");
    expect(screen.getByRole("radio", { name: "Allowed domains" })).toBeChecked();
    const list = screen.getByRole("list", { name: "Allowed domains" });
    expect(within(list).getAllByRole("listitem").map((li) => li.querySelector("code")?.textContent)).toEqual(["crates.io", "*.npmjs.org"]);
    expect(screen.getByTestId("wsnet-workspace")).toHaveTextContent(WORKSPACE);
  });

  it("adds domains with the keyboard, removes one, and saves the allow-list to the workspace", async () => {
    const calls = fakeFile();
    const user = userEvent.setup();
    render(<WorkspaceNetworkSettings workspace={WORKSPACE} />);
    expect(await screen.findByTestId("wsnet-state")).toHaveTextContent("No network file yet");
    expect(screen.getByRole("radio", { name: "Off" })).toBeChecked();
    await user.click(screen.getByRole("radio", { name: "Allowed domains" }));
    expect(screen.getByText(/No domain yet/)).toBeInTheDocument();
    const field = screen.getByRole("textbox", { name: "Domain" });
    await user.type(field, "crates.io{Enter}");
    await user.type(field, "  *.npmjs.org {Enter}");
    await user.type(field, "example.com");
    await user.click(screen.getByRole("button", { name: "Add domain" }));
    expect(field).toHaveValue("");
    await user.click(screen.getByRole("button", { name: "Remove example.com" }));
    expect(screen.getByText("Not saved yet")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save workspace network" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Saved: new sessions in this workspace get allowed domains (crates.io, *.npmjs.org).");
    expect(saves(calls)).toEqual([{ workspace: WORKSPACE, network: "allow-list", allow_domains: ["crates.io", "*.npmjs.org"] }]);
    expect(screen.getByTestId("wsnet-state")).toHaveTextContent("Applied");
    expect(screen.queryByText("Not saved yet")).not.toBeInTheDocument();
  });

  it("shows a file changed outside Strata as not applied and never puts its domains in the form", async () => {
    const calls = fakeFile({ exists: true, network: "on", allow_domains: ["evil.example"], applied: false });
    const user = userEvent.setup();
    render(<WorkspaceNetworkSettings workspace={WORKSPACE} />);
    const note = await screen.findByRole("note");
    expect(note).toHaveTextContent("Not applied: the file changed since Strata saved it");
    expect(screen.getByTestId("wsnet-not-applied")).toHaveTextContent("It asks for Onevil.examplenot applied");
    expect(screen.getByRole("radio", { name: "Off" })).toBeChecked();
    await user.click(screen.getByRole("radio", { name: "Allowed domains" }));
    expect(screen.queryByRole("list", { name: "Allowed domains" })).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save workspace network" }));
    await screen.findByRole("status");
    expect(saves(calls)).toEqual([{ workspace: WORKSPACE, network: "allow-list", allow_domains: [] }]);
    expect(screen.queryByRole("note")).not.toBeInTheDocument();
  });

  it("shows the app's refusal of a domain, marks it, and keeps the form as typed", async () => {
    fakeFile();
    const user = userEvent.setup();
    render(<WorkspaceNetworkSettings workspace={WORKSPACE} />);
    await user.click(await screen.findByRole("radio", { name: "Allowed domains" }));
    await user.type(screen.getByRole("textbox", { name: "Domain" }), "crates.io{Enter}not a domain{Enter}");
    await user.click(screen.getByRole("button", { name: "Save workspace network" }));
    expect(await screen.findByRole("alert")).toHaveTextContent('"not a domain" is not a domain, a *.domain or an IP address');
    const items = within(screen.getByRole("list", { name: "Allowed domains" })).getAllByRole("listitem");
    expect(items.map((li) => li.getAttribute("aria-invalid"))).toEqual([null, "true"]);
    expect(screen.getByTestId("wsnet-state")).toHaveTextContent("No network file yet");
    expect(screen.queryByRole("status")).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Remove not a domain" }));
    await user.click(screen.getByRole("button", { name: "Save workspace network" }));
    await waitFor(() => expect(screen.queryByRole("alert")).not.toBeInTheDocument());
    expect(screen.getByTestId("wsnet-state")).toHaveTextContent("Applied");
  });

  it("without an open session, a chosen folder's file is shown", async () => {
    const calls = fakeFile();
    const user = userEvent.setup();
    render(<WorkspaceNetworkSettings workspace={null} />);
    expect(screen.getByText(/No workspace: open a session/)).toBeInTheDocument();
    expect(screen.queryByRole("radiogroup")).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Choose a folder…" }));
    expect(await screen.findByTestId("wsnet-workspace")).toHaveTextContent("/work/other");
    await screen.findByRole("radiogroup", { name: "Network for sessions in this workspace" });
    expect(calls.find(([cmd]) => cmd === "get_workspace_network")?.[1]).toEqual({ workspace: "/work/other" });
  });
});
