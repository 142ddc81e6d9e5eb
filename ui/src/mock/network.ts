// The preview backend's workspace network files: kept in memory (the app keeps each in the
// workspace's .strata/network.toml, its digest in the config folder, and checks domains with
// the proxy's own parser, in Rust; the preview refuses only the plainly malformed).
import type { SaveWorkspaceNetwork } from "../bindings/SaveWorkspaceNetwork";
import type { WorkspaceNetworkView } from "../bindings/WorkspaceNetworkView";

export class MockWorkspaceNetworks {
  files = new Map<string, WorkspaceNetworkView>();

  view(workspace: string): WorkspaceNetworkView {
    return this.files.get(workspace) ?? { file: `${workspace}/.strata/network.toml`, exists: false, network: null, allow_domains: [], applied: false };
  }

  save(request: SaveWorkspaceNetwork): WorkspaceNetworkView {
    const domains = [...new Set(request.allow_domains.map((d) => d.trim()).filter(Boolean))];
    const bad = domains.find((d) => !/^(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/.test(d));
    if (bad !== undefined) throw { kind: "invalid_input", message: `Nothing was saved: "${bad}" is not a domain, a *.domain or an IP address.` };
    const saved = { file: `${request.workspace}/.strata/network.toml`, exists: true, network: request.network, allow_domains: domains, applied: true };
    this.files.set(request.workspace, saved);
    return saved;
  }
}
