import { memo, useCallback, useId, useState } from "react";
import * as api from "../api/commands";
import type { RuleKind } from "../bindings/RuleKind";
import type { RuleList } from "../bindings/RuleList";
import type { RuleRef } from "../bindings/RuleRef";
import type { RulesListing } from "../bindings/RulesListing";
import { mcpRuleParts, shortFingerprint } from "../lib/mcpRule";
import { AddFormField } from "./AddFormField";
import { Listbox } from "./Listbox";
import { useEditedListing } from "./useEditedListing";

/** The nine lists a rule can be in, as the settings name them. */
export const RULE_LISTS: { kind: RuleKind; list: RuleList; label: string }[] = [
  { kind: "command", list: "allow", label: "Allow command" },
  { kind: "command", list: "ask", label: "Ask for command" },
  { kind: "command", list: "deny", label: "Deny command" },
  { kind: "write", list: "allow", label: "Allow write" },
  { kind: "write", list: "ask", label: "Ask for write" },
  { kind: "write", list: "deny", label: "Deny write" },
  { kind: "mcp", list: "allow", label: "Allow MCP tool" },
  { kind: "mcp", list: "ask", label: "Ask for MCP tool" },
  { kind: "mcp", list: "deny", label: "Deny MCP tool" },
];

const PLACEHOLDER: Record<RuleKind, string> = {
  command: "cargo test*",
  write: "src/**",
  mcp: "github/search_*",
};

/** A rule's pattern: an MCP allow rule shows its names, and the launch command it is bound to in short. */
function PatternCell({ rule, unbound }: { rule: RuleRef; unbound: boolean }) {
  if (rule.kind !== "mcp") return <code>{rule.pattern}</code>;
  const { names, fingerprint } = mcpRuleParts(rule.pattern);
  return (
    <>
      <code>{names}</code>
      {fingerprint && (
        <span className="rule-binding muted" title={`Bound to the launch command whose fingerprint is ${fingerprint}`}>
          {" "}
          on the launch command <code>{shortFingerprint(fingerprint)}</code>
        </span>
      )}
      {unbound && (
        <span className="rule-unbound" data-testid="rule-no-server">
          {" "}
          matches nothing: no configured server runs this command now
        </span>
      )}
    </>
  );
}

const LIST_OPTIONS = RULE_LISTS.map((option, index) => ({ value: String(index), label: option.label }));

const PLACES: { value: "user" | "workspace"; label: string }[] = [
  { value: "user", label: "Your rules" },
  { value: "workspace", label: "This workspace" },
];

const SOURCE_LABEL: Record<RuleRef["source"], string> = {
  user: "You (config.toml)",
  workspace: "This workspace (.strata/rules.toml)",
  session: "This session",
};

function listLabel(rule: RuleRef): string {
  return RULE_LISTS.find((l) => l.kind === rule.kind && l.list === rule.list)?.label ?? `${rule.list} ${rule.kind}`;
}

/** The pattern as a label names it: an MCP rule by its `SERVER/TOOL`. */
function shownPattern(rule: RuleRef): string {
  return rule.kind === "mcp" ? mcpRuleParts(rule.pattern).names : rule.pattern;
}

function ruleKey(rule: RuleRef): string {
  return `${rule.source}\u0000${rule.kind}\u0000${rule.list}\u0000${rule.pattern}`;
}

interface RulesSettingsProps {
  /** The open session's workspace: its `.strata/rules.toml` is listed and editable too. */
  workspace: string | null;
}

/**
 * The approval rules: the user's and the open workspace's, with their source, each removable, and
 * a form to add one. Edits are saved at once (by the app, through `add_rule` / `remove_rule`), not
 * with the dialog's Save.
 */
export const RulesSettings = memo(function RulesSettings({ workspace }: RulesSettingsProps) {
  const load = useCallback(() => api.listRules(workspace), [workspace]);
  const { listing, loadError, error, setError, busy, run: runListing } = useEditedListing(load);
  const [listIndex, setListIndex] = useState(0);
  const [pattern, setPattern] = useState("");
  const [toWorkspace, setToWorkspace] = useState(workspace !== null);
  const ids = useId();

  // An edit answers with the listing of its own file; the section shows both, so it lists again.
  const run = (work: () => Promise<RulesListing>) => runListing(() => work().then(load));

  const add = async () => {
    const chosen = RULE_LISTS[listIndex];
    if (!chosen) return;
    if (pattern.trim() === "") {
      setError(`Type a pattern first, e.g. ${PLACEHOLDER[chosen.kind]}.`);
      return;
    }
    const request = { kind: chosen.kind, list: chosen.list, pattern, ...(toWorkspace && workspace ? { workspace } : {}) };
    if (await run(() => api.addRule(request))) setPattern("");
  };

  const remove = (rule: RuleRef) =>
    void run(() => api.removeRule({ kind: rule.kind, list: rule.list, pattern: rule.pattern, ...(rule.source === "workspace" && workspace ? { workspace } : {}) }));

  const rules = listing?.rules ?? [];
  const notApplied = listing?.not_applied ?? [];
  const noServer = new Set((listing?.no_server ?? []).map(ruleKey));
  const chosenKind = RULE_LISTS[listIndex]?.kind ?? "command";
  return (
    <section className="settings-section" aria-labelledby={`${ids}-heading`}>
      <h3 id={`${ids}-heading`}>Rules</h3>
      <p className="muted settings-rules-hint">
        What runs without asking, what always asks and what is refused, by command pattern (<code>cargo test*</code>), written path (
        <code>src/**</code>) or MCP tool (<code>github/search_*</code>). Deny wins; changes here are saved at once. An MCP allow rule holds
        for the server&rsquo;s launch command as it is when you add it: if that command changes, the rule stops applying.
      </p>
      {listing === null && loadError === null && <p className="muted">Loading the rules…</p>}
      {listing === null && loadError !== null && <p className="muted">The rules could not be read: {loadError}</p>}
      {listing !== null && rules.length === 0 && notApplied.length === 0 && <p className="muted">No rules yet: approvals follow the policy above.</p>}
      {(rules.length > 0 || notApplied.length > 0) && (
        <table className="rules-table" aria-label="Approval rules">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Pattern</th>
              <th scope="col">Source</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => (
              <tr key={ruleKey(rule)} data-testid="rule-row">
                <td className={`rule-list rule-list-${rule.list}`}>{listLabel(rule)}</td>
                <td>
                  <PatternCell rule={rule} unbound={noServer.has(ruleKey(rule))} />
                </td>
                <td className="muted">{SOURCE_LABEL[rule.source]}</td>
                <td>
                  {rule.source !== "session" && (
                    <button type="button" className="link-button" aria-label={`Remove ${listLabel(rule).toLowerCase()} ${shownPattern(rule)}`} disabled={busy} onClick={() => remove(rule)}>
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
            {notApplied.map((rule) => (
              <tr key={`off-${ruleKey(rule)}`} className="rule-not-applied" data-testid="rule-not-applied">
                <td className="rule-list">{listLabel(rule)}</td>
                <td>
                  <PatternCell rule={rule} unbound={false} />
                </td>
                <td className="muted">{SOURCE_LABEL[rule.source]}, not in effect</td>
                <td>
                  <button
                    type="button"
                    className="link-button"
                    aria-label={`Trust ${listLabel(rule).toLowerCase()} ${shownPattern(rule)}`}
                    disabled={busy}
                    onClick={() => void run(() => api.addRule({ kind: rule.kind, list: rule.list, pattern: rule.pattern, ...(workspace ? { workspace } : {}) }))}
                  >
                    Trust
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {notApplied.length > 0 && (
        <p className="settings-shell-warning" role="note" data-testid="rules-untrusted">
          <span className="approval-warning-icon" aria-hidden="true">
            !
          </span>
          <span>
            <strong>This workspace&rsquo;s rules file was edited outside Strata;</strong> its allow rules are ignored until you save it here: Trust
            the ones you want (saving this workspace&rsquo;s rules keeps only those). Its ask and deny rules still apply.
          </span>
        </p>
      )}
      <div className="rules-add" role="group" aria-label="Add a rule">
        <div className="field rules-add-field">
          <label className="field-label" htmlFor={`${ids}-list`}>
            Rule
          </label>
          <Listbox<string> id={`${ids}-list`} value={String(listIndex)} options={LIST_OPTIONS} onChange={(value) => setListIndex(Number(value))} />
        </div>
        <AddFormField id={`${ids}-pattern`} label="Pattern" value={pattern} placeholder={PLACEHOLDER[chosenKind]} className="rules-add-pattern" onChange={setPattern} onEnter={() => void add()} />
        <div className="field rules-add-field">
          <label className="field-label" htmlFor={`${ids}-place`}>
            Saved in
          </label>
          <Listbox<"user" | "workspace">
            id={`${ids}-place`}
            value={toWorkspace && workspace ? "workspace" : "user"}
            options={workspace ? PLACES : PLACES.slice(0, 1)}
            onChange={(value) => setToWorkspace(value === "workspace")}
          />
        </div>
        <button type="button" className="button" disabled={busy} onClick={() => void add()}>
          Add rule
        </button>
      </div>
      {workspace && (
        <p className="muted settings-rules-hint">
          This workspace: <code>{workspace}</code>
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
});
