import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { demoSettings } from "../test/fixtures";
import { mockShell } from "../test/shell";
import { NewSessionSheet } from "./NewSessionSheet";

const RECENT = ["/home/ana/projects/ingest", "/home/ana/projects/orders", "/home/ana/notes"];
const local = { id: "local", kind: "openai-chat" as const, label: "Local server", model: "qwen3-coder", has_key: false, compact_threshold: 8000 };

function renderSheet(recent: string[] | null = RECENT, browse: string | null = "/home/ana/picked", sandboxUnavailable: string | null = null) {
  const handlers = { onStart: vi.fn(), onCancel: vi.fn(), onBrowse: vi.fn(async () => browse) };
  render(<NewSessionSheet recent={recent} profiles={[...demoSettings.profiles, local]} defaultProfile="demo" defaultApproval="ask" defaultSandbox="workspace-write" sandboxUnavailable={sandboxUnavailable} defaultNetwork="off" allowDomains={["crates.io"]} {...handlers} />);
  return { ...handlers, user: userEvent.setup() };
}

const options = () => within(screen.getByRole("listbox", { name: "Recent folders" })).queryAllByRole("option");

describe("NewSessionSheet", () => {
  it("starts sandboxed by default, and where this computer cannot sandbox says so, until off is chosen", async () => {
    const reason = "the workspace-write sandbox is unavailable (this kernel lacks a user and network namespace to cut the network)";
    const { user } = renderSheet(RECENT, null, reason);
    const group = screen.getByRole("radiogroup", { name: "Shell sandbox" });
    expect(within(group).getByRole("radio", { name: "Workspace (default)" })).toBeChecked();
    expect(screen.getByRole("note")).toHaveTextContent(`Not available here: ${reason}. Every shell command asks first.`);
    await user.click(within(group).getByRole("radio", { name: "No sandbox" }));
    expect(screen.queryByRole("note")).not.toBeInTheDocument();
  });

  it("offers the recent folders with the newest selected, and Enter starts there on the default profile and policy", async () => {
    const { onStart, user } = renderSheet();
    const filter = screen.getByRole("combobox", { name: "Folder" });
    expect(filter).toHaveFocus();
    expect(options().map((o) => o.getAttribute("title"))).toEqual(RECENT);
    expect(options()[0]).toHaveAttribute("aria-selected", "true");
    expect(screen.getByTestId("new-session-folder")).toHaveTextContent("Starts in /home/ana/projects/ingest");
    await user.keyboard("{Enter}");
    expect(onStart).toHaveBeenCalledWith({ workspace: RECENT[0], profileId: "demo", approval: "ask", sandbox: "workspace-write", network: "off" });
  });

  it("filters as the person types, moves with the arrows, and starts with the chosen profile and approval", async () => {
    const { onStart, user } = renderSheet();
    await user.type(screen.getByRole("combobox", { name: "Folder" }), "projects");
    expect(options()).toHaveLength(2);
    await user.keyboard("{ArrowDown}");
    expect(options()[1]).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("combobox", { name: "Folder" })).toHaveAttribute("aria-activedescendant", options()[1]!.id);
    await user.selectOptions(screen.getByRole("combobox", { name: "Profile" }), "local");
    await user.click(screen.getByRole("radio", { name: "Auto" }));
    expect(screen.getByTestId("new-session-sandbox-hint")).toHaveTextContent("Commands write only inside the workspace and their temp folder.");
    await user.click(within(screen.getByRole("radiogroup", { name: "Shell sandbox" })).getByRole("radio", { name: "No writes" }));
    expect(screen.getByTestId("new-session-sandbox-hint")).toHaveTextContent("Commands write only in their temp folder.");
    await user.click(screen.getByRole("button", { name: "Start session" }));
    expect(onStart).toHaveBeenCalledWith({ workspace: "/home/ana/projects/orders", profileId: "local", approval: "auto", sandbox: "read-only", network: "off" });
  });

  it("offers a typed full path that is not recent, and says when nothing matches", async () => {
    const { onStart, user } = renderSheet();
    const filter = screen.getByRole("combobox", { name: "Folder" });
    await user.type(filter, "zebra");
    expect(options()).toHaveLength(0);
    expect(screen.getByText("No recent folder matches. Type a full path, or Browse…")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Start session" })).toBeDisabled();
    await user.clear(filter);
    await user.type(filter, "/srv/work/new-thing{Enter}");
    expect(onStart).toHaveBeenCalledWith({ workspace: "/srv/work/new-thing", profileId: "demo", approval: "ask", sandbox: "workspace-write", network: "off" });
  });

  it("puts the folder Browse… picked first and selected; a cancelled picker changes nothing", async () => {
    const { onStart, onBrowse, user } = renderSheet([], "/home/ana/picked");
    expect(screen.getByText("No recent folders yet. Browse… for one, or type its full path.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Browse…" }));
    expect(onBrowse).toHaveBeenCalledOnce();
    await waitFor(() => expect(screen.getByTestId("new-session-folder")).toHaveTextContent("Starts in /home/ana/picked"));
    await user.click(screen.getByRole("button", { name: "Start session" }));
    expect(onStart).toHaveBeenCalledWith({ workspace: "/home/ana/picked", profileId: "demo", approval: "ask", sandbox: "workspace-write", network: "off" });
  });

  it("picks the network under the sandbox: allowed domains shows the settings' list, and no sandbox disables it", async () => {
    const { onStart, user } = renderSheet();
    const network = () => within(screen.getByRole("radiogroup", { name: "Network (this session)" }));
    expect(network().getByRole("radio", { name: "Off" })).toBeChecked();
    await user.click(network().getByRole("radio", { name: "Allowed domains…" }));
    expect(screen.getByTestId("sandbox-network-domains")).toHaveTextContent("Allowed: crates.io");
    expect(screen.getByTestId("sandbox-network-hint")).toHaveTextContent("only the allowed domains");
    await user.click(screen.getByRole("button", { name: "Start session" }));
    expect(onStart).toHaveBeenLastCalledWith({ workspace: RECENT[0], profileId: "demo", approval: "ask", sandbox: "workspace-write", network: "allow-list" });
    await user.click(within(screen.getByRole("radiogroup", { name: "Shell sandbox" })).getByRole("radio", { name: "No sandbox" }));
    expect(network().getByRole("radio", { name: "On" })).toBeDisabled();
    expect(screen.getByTestId("sandbox-network-hint")).toHaveTextContent("Without a sandbox, commands use your own network.");
  });

  it("starts from a workspace's network file where Strata saved it, its domains first, until the person chooses", async () => {
    mockShell((cmd, args) => {
      if (cmd !== "get_workspace_network") throw { kind: "internal", message: cmd };
      const saved = args.workspace === RECENT[1];
      return { file: `${String(args.workspace)}/.strata/network.toml`, exists: saved, network: saved ? "allow-list" : null, allow_domains: saved ? ["*.npmjs.org"] : [], applied: saved };
    });
    const { onStart, user } = renderSheet();
    const network = () => within(screen.getByRole("radiogroup", { name: "Network (this session)" }));
    expect(network().getByRole("radio", { name: "Off" })).toBeChecked();
    expect(screen.queryByTestId("new-session-network-source")).not.toBeInTheDocument();
    await user.keyboard("{ArrowDown}");
    await waitFor(() => expect(network().getByRole("radio", { name: "Allowed domains…" })).toBeChecked());
    expect(screen.getByTestId("sandbox-network-domains")).toHaveTextContent("Allowed: *.npmjs.org, crates.io");
    expect(screen.getByTestId("new-session-network-source")).toHaveTextContent("From this workspace’s .strata/network.toml, saved by Strata.");
    await user.click(screen.getByRole("button", { name: "Start session" }));
    expect(onStart).toHaveBeenLastCalledWith({ workspace: RECENT[1], profileId: "demo", approval: "ask", sandbox: "workspace-write", network: "allow-list" });
    // The person's own choice stands when another folder is highlighted.
    await user.click(network().getByRole("radio", { name: "On" }));
    await user.click(screen.getByRole("combobox", { name: "Folder" }));
    await user.keyboard("{ArrowUp}");
    expect(screen.getByTestId("new-session-folder")).toHaveTextContent(`Starts in ${RECENT[0]}`);
    expect(network().getByRole("radio", { name: "On" })).toBeChecked();
    expect(screen.queryByTestId("new-session-network-source")).not.toBeInTheDocument();
  });

  it("closes on Escape and Cancel without starting anything", async () => {
    const { onStart, onCancel, user } = renderSheet();
    await user.keyboard("{Escape}");
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(onCancel).toHaveBeenCalledTimes(2);
    expect(onStart).not.toHaveBeenCalled();
  });
});
