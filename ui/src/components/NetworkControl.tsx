import { useId } from "react";
import type { SandboxMode } from "../bindings/SandboxMode";
import type { SandboxNetwork } from "../bindings/SandboxNetwork";
import { SANDBOX_NETWORKS, isSandboxed, networkHint } from "../lib/sandbox";

interface NetworkControlProps {
  /** What sandboxed commands reach. */
  value: SandboxNetwork;
  onChange: (network: SandboxNetwork) => void;
  /** The sandbox mode chosen beside it: without a sandbox the network is the person's own. */
  sandbox: SandboxMode;
  /** The allowed domains (the settings'). */
  domains: readonly string[];
  /** Given: the domains are edited here, as typed; absent: they are shown, set in Settings. */
  domainsText?: string;
  onDomainsText?: (text: string) => void;
  label: string;
}

/** The network sandboxed commands get: Off / Allowed domains… / On, under the sandbox mode. */
export function NetworkControl({ value, onChange, sandbox, domains, domainsText, onDomainsText, label }: NetworkControlProps) {
  const id = useId();
  const sandboxed = isSandboxed(sandbox);
  return (
    <div className="sandbox-network" data-testid="sandbox-network">
      <span className="field-label" id={`${id}-label`}>
        {label}
      </span>
      <div className="segmented" role="radiogroup" aria-labelledby={`${id}-label`}>
        {SANDBOX_NETWORKS.map((choice) => (
          <label key={choice.value} className={value === choice.value ? "selected" : undefined} title={choice.hint}>
            <input type="radio" name={`${id}-network`} value={choice.value} checked={value === choice.value} disabled={!sandboxed} onChange={() => onChange(choice.value)} />
            {choice.label}
          </label>
        ))}
      </div>
      <p className="muted small" data-testid="sandbox-network-hint">
        {sandboxed ? networkHint(value) : "Without a sandbox, commands use your own network."}
      </p>
      {sandboxed && value === "allow-list" && onDomainsText && (
        <label className="field">
          <span className="field-label">Allowed domains (one a line: crates.io, *.npmjs.org)</span>
          <textarea aria-label="Allowed domains" rows={3} value={domainsText ?? ""} onChange={(event) => onDomainsText(event.target.value)} spellCheck={false} />
        </label>
      )}
      {sandboxed && value === "allow-list" && !onDomainsText && (
        <p className="muted small" data-testid="sandbox-network-domains">
          {domains.length ? `Allowed: ${domains.join(", ")}` : "No domain is allowed yet: add them in Settings (or the workspace's .strata/network.toml)."}
        </p>
      )}
    </div>
  );
}
