use super::*;

fn recorded(network: SandboxNetwork, domains: &[&str]) -> SandboxSet {
    SandboxSet {
        mode: SandboxMode::WorkspaceWrite,
        network,
        allow_domains: domains.iter().map(|d| (*d).to_owned()).collect(),
    }
}

fn strings(domains: &[&str]) -> Vec<String> {
    domains.iter().map(|d| (*d).to_owned()).collect()
}

#[test]
fn the_sandbox_mode_is_the_flags_then_the_recorded_then_the_configured_then_workspace_write() {
    use SandboxMode::{Off, ReadOnly, WorkspaceWrite};
    assert_eq!(
        sandbox_mode(Some(ReadOnly), Some(WorkspaceWrite), Some(Off)),
        ReadOnly
    );
    assert_eq!(
        sandbox_mode(None, Some(WorkspaceWrite), Some(ReadOnly)),
        WorkspaceWrite
    );
    assert_eq!(sandbox_mode(None, None, Some(ReadOnly)), ReadOnly);
    assert_eq!(sandbox_mode(None, None, Some(Off)), Off);
    // Nothing named: confined to the workspace; off is only ever chosen.
    assert_eq!(sandbox_mode(None, None, None), WorkspaceWrite);
}

#[test]
fn the_network_is_the_flags_then_the_recorded_then_the_workspaces_then_the_configs_then_off() {
    let config_domains = strings(&["crates.io"]);
    let configured = (Some(SandboxNetwork::On), config_domains.as_slice());
    let workspace = (SandboxNetwork::AllowList, strings(&["*.npmjs.org"]));
    let set = recorded(SandboxNetwork::Off, &[]);
    assert_eq!(
        sandbox_network(
            Some(SandboxNetwork::AllowList),
            Some(&set),
            Some(&workspace),
            configured
        ),
        (
            SandboxNetwork::AllowList,
            strings(&["*.npmjs.org", "crates.io"])
        )
    );
    assert_eq!(
        sandbox_network(None, Some(&set), Some(&workspace), configured),
        (SandboxNetwork::Off, Vec::new())
    );
    assert_eq!(
        sandbox_network(None, None, Some(&workspace), configured).0,
        SandboxNetwork::AllowList
    );
    assert_eq!(
        sandbox_network(None, None, None, configured),
        (SandboxNetwork::On, strings(&["crates.io"]))
    );
    assert_eq!(
        sandbox_network(None, None, None, (None, &[])),
        (SandboxNetwork::Off, Vec::new())
    );
}

#[test]
fn a_resume_without_a_flag_keeps_the_recorded_domains_not_the_configs_new_ones() {
    let set = recorded(SandboxNetwork::AllowList, &["crates.io"]);
    let config_domains = strings(&["crates.io", "evil.example"]);
    assert_eq!(
        sandbox_network(None, Some(&set), None, (None, &config_domains)),
        (SandboxNetwork::AllowList, strings(&["crates.io"]))
    );
}
