import { memo, useId, useState } from "react";
import * as api from "../api/commands";
import { toCommandFailure } from "../api/commands";
import type { McpApprovalMode } from "../bindings/McpApprovalMode";
import type { McpServerTest } from "../bindings/McpServerTest";
import type { McpServerView } from "../bindings/McpServerView";
import type { McpTestPhaseKind } from "../bindings/McpTestPhaseKind";
import { AddFormField } from "./AddFormField";
import { Listbox } from "./Listbox";
import { useEditedListing } from "./useEditedListing";
import "./McpSettings.css";

const APPROVALS: { value: McpApprovalMode; label: string }[] = [
  { value: "ask", label: "Ask before each call" },
  { value: "auto", label: "Run without asking" },
];

/** How the servers table names each approval: short, beside the command. */
const APPROVAL_SHORT: Record<McpApprovalMode, string> = { ask: "Ask first", auto: "Run freely" };

const PHASE_LABEL: Record<McpTestPhaseKind, string> = {
  initialize: "started",
  list_tools: "listed tools",
  stop: "stopped",
};

const number = new Intl.NumberFormat("en-US");

/** A word as a shell would read it back: bare when plain, else single-quoted (display only). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_\-./:=@%+,]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

export function commandLine(server: McpServerView): string {
  return [server.command, ...server.args].map(shellWord).join(" ");
}

/** What one test found, in a sentence and its details. */
function TestResult({ report }: { report: McpServerTest }) {
  const phases = report.phases.map((p) => `${PHASE_LABEL[p.phase]} ${number.format(p.millis)} ms`).join(" · ");
  return (
    <div className={`mcp-test ${report.ok ? "mcp-test-ok" : "mcp-test-failed"}`} data-testid="mcp-test-result" role="status">
      {report.ok ? (
        <p className="mcp-test-summary">
          <strong>{report.server_info ?? report.server}</strong> is ready: {report.tools.length} {report.tools.length === 1 ? "tool" : "tools"},{" "}
          {number.format(report.definition_tokens)} tokens in every request ({report.estimator}).
        </p>
      ) : (
        <p className="mcp-test-summary">
          <strong>{report.server}</strong> failed its test.
        </p>
      )}
      {phases && <p className="muted mcp-test-phases">{phases}</p>}
      {report.error && <pre className="mcp-test-error">{report.error}</pre>}
      {report.tools.length > 0 && (
        <details className="mcp-test-tools">
          <summary>Tools and what their definitions cost</summary>
          <table className="rules-table mcp-tools-table" aria-label={`Tools of ${report.server}`}>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Tokens</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {report.tools.map((tool) => (
                <tr key={tool.name}>
                  <td>
                    <code>{tool.tool}</code>
                  </td>
                  <td className="mcp-tokens">{number.format(tool.tokens)}</td>
                  <td className="muted">{tool.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      {report.left_out && report.left_out.length > 0 && (
        <ul className="mcp-left-out">
          {report.left_out.map((tool) => (
            <li key={tool.tool}>
              <code>{tool.tool}</code> is not offered: {tool.reason}
            </li>
          ))}
        </ul>
      )}
      {report.stray_stdout_lines > 0 && (
        <p className="muted">
          {number.format(report.stray_stdout_lines)} lines on its stdout were not MCP messages (a server must write only protocol messages there).
        </p>
      )}
      {report.stderr_tail.length > 0 && (
        <details className="mcp-test-stderr">
          <summary>Its stderr (last {report.stderr_tail.length} lines)</summary>
          <pre>{report.stderr_tail.join("\n")}</pre>
        </details>
      )}
    </div>
  );
}

/**
 * The MCP servers of config.toml: each with its command, how its calls are approved, whether
 * sessions start it, a Test that starts it once and shows what it offers, and Remove; a form adds
 * one. Edits are saved at once (by the app), not with the dialog's Save.
 */
export const McpSettings = memo(function McpSettings() {
  const { listing, loadError, error, setError, busy, run } = useEditedListing(api.listMcpServers);
  const [testing, setTesting] = useState<string | null>(null);
  const [tests, setTests] = useState<Record<string, McpServerTest>>({});
  const [logs, setLogs] = useState<Record<string, string[]>>({});
  const [name, setName] = useState("");
  const [commandText, setCommandText] = useState("");
  const [envVars, setEnvVars] = useState("");
  const [approval, setApproval] = useState<McpApprovalMode>("ask");
  const ids = useId();

  const add = async () => {
    if (name.trim() === "" || commandText.trim() === "") {
      setError("Give the server a name and the command that starts it.");
      return;
    }
    const env_vars = envVars
      .split(/[\s,]+/)
      .map((v) => v.trim())
      .filter((v) => v !== "");
    if (await run(() => api.addMcpServer({ name: name.trim(), command_line: commandText, env_vars, approval }))) {
      setName("");
      setCommandText("");
      setEnvVars("");
    }
  };

  const test = async (server: string) => {
    setTesting(server);
    try {
      const report = await api.testMcpServer(server);
      setTests((all) => ({ ...all, [server]: report }));
      setError(null);
    } catch (failure) {
      setError(toCommandFailure(failure).message);
    } finally {
      setTesting(null);
    }
  };

  /** Shows the server's log under its row, or hides it when shown. */
  const toggleLog = async (server: string) => {
    if (logs[server]) {
      setLogs(({ [server]: _shown, ...rest }) => rest);
      return;
    }
    try {
      const log = await api.mcpServerLog(server);
      setLogs((all) => ({ ...all, [server]: log.lines }));
      setError(null);
    } catch (failure) {
      setError(toCommandFailure(failure).message);
    }
  };

  const servers = listing?.servers ?? [];
  const problems = listing?.problems ?? [];
  return (
    <section className="settings-section" aria-labelledby={`${ids}-heading`}>
      <h3 id={`${ids}-heading`}>MCP servers</h3>
      <p className="muted settings-rules-hint">
        Tools from Model Context Protocol servers: each session starts the enabled ones and offers their tools as <code>mcp__server__tool</code>.
        Changes are saved at once{listing ? <> to <code>{listing.config}</code></> : null}; open sessions use them from their next turn.
      </p>
      {listing === null && loadError === null && <p className="muted">Loading the servers…</p>}
      {listing === null && loadError !== null && <p className="muted">The servers could not be read: {loadError}</p>}
      {listing !== null && servers.length === 0 && problems.length === 0 && <p className="muted">No MCP servers yet: sessions have Strata&rsquo;s own tools.</p>}
      {servers.length > 0 && (
        <table className="rules-table mcp-table" aria-label="MCP servers">
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">Command</th>
              <th scope="col">Calls</th>
              <th scope="col">In sessions</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {servers.map((server) => (
              <McpServerRow
                key={server.name}
                server={server}
                busy={busy}
                testing={testing === server.name}
                report={tests[server.name]}
                log={logs[server.name]}
                onLog={() => void toggleLog(server.name)}
                onEnable={(enabled) => void run(() => api.setMcpServerEnabled(server.name, enabled))}
                onTest={() => void test(server.name)}
                onRemove={() => void run(() => api.removeMcpServer(server.name))}
              />
            ))}
          </tbody>
        </table>
      )}
      {problems.length > 0 && (
        <ul className="mcp-problems" data-testid="mcp-problems">
          {problems.map((problem) => (
            <li key={problem.name} className="settings-shell-warning" role="note">
              <span className="approval-warning-icon" aria-hidden="true">
                !
              </span>
              <span>
                <strong>{problem.name}</strong> is not started: {problem.message}
              </span>
            </li>
          ))}
        </ul>
      )}
      <div className="rules-add mcp-add" role="group" aria-label="Add an MCP server">
        <AddFormField id={`${ids}-name`} label="Name" value={name} placeholder="docs" className="mcp-add-name" maxLength={32} onChange={setName} onEnter={() => void add()} />
        <AddFormField
          id={`${ids}-command`}
          label="Command"
          value={commandText}
          placeholder="npx -y some-mcp-server"
          className="mcp-add-command"
          onChange={setCommandText}
          onEnter={() => void add()}
        />
        <AddFormField id={`${ids}-env`} label="Variables it gets" value={envVars} placeholder="GITHUB_TOKEN" className="mcp-add-env" onChange={setEnvVars} onEnter={() => void add()} />
        <div className="field rules-add-field">
          <label className="field-label" htmlFor={`${ids}-approval`}>
            Calls
          </label>
          <Listbox<McpApprovalMode> id={`${ids}-approval`} value={approval} options={APPROVALS} onChange={setApproval} />
        </div>
        <button type="button" className="button" disabled={busy} onClick={() => void add()}>
          Add server
        </button>
      </div>
      <p className="muted settings-rules-hint">
        A server starts with a cleared environment: name the variables it needs (copied from Strata&rsquo;s own environment when it starts).
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
});

interface McpServerRowProps {
  server: McpServerView;
  busy: boolean;
  testing: boolean;
  report: McpServerTest | undefined;
  /** The server's kept stderr, when shown. */
  log: string[] | undefined;
  onLog: () => void;
  onEnable: (enabled: boolean) => void;
  onTest: () => void;
  onRemove: () => void;
}

function McpServerRow({ server, busy, testing, report, log, onLog, onEnable, onTest, onRemove }: McpServerRowProps) {
  const approval = APPROVAL_SHORT[server.approval];
  return (
    <>
      <tr data-testid="mcp-server-row" className={server.enabled ? undefined : "mcp-disabled"}>
        <td>
          <strong>{server.name}</strong>
          {server.env_vars.length > 0 && <div className="muted mcp-env">gets {server.env_vars.join(", ")}</div>}
        </td>
        <td>
          <code className="mcp-command">{commandLine(server)}</code>
        </td>
        <td className="muted mcp-approval" title={APPROVALS.find((a) => a.value === server.approval)?.label}>
          {approval}
        </td>
        <td>
          <label className="mcp-enabled">
            <input type="checkbox" role="switch" checked={server.enabled} disabled={busy} aria-label={`Start ${server.name} in sessions`} onChange={(e) => onEnable(e.target.checked)} />
            {server.enabled ? "On" : "Off"}
          </label>
        </td>
        <td>
          <button type="button" className="link-button" aria-label={`Test ${server.name}`} disabled={testing} onClick={onTest}>
            {testing ? "Testing…" : "Test"}
          </button>{" "}
          <button type="button" className="link-button" aria-label={`Logs of ${server.name}`} aria-expanded={log !== undefined} onClick={onLog}>
            Logs
          </button>{" "}
          <button type="button" className="link-button" aria-label={`Remove ${server.name}`} disabled={busy} onClick={onRemove}>
            Remove
          </button>
        </td>
      </tr>
      {report && (
        <tr className="mcp-test-row">
          <td colSpan={5}>
            <TestResult report={report} />
          </td>
        </tr>
      )}
      {log && (
        <tr className="mcp-test-row">
          <td colSpan={5}>
            <div className="mcp-test mcp-log" data-testid="mcp-server-log">
              {log.length === 0 ? (
                <p className="muted">No log yet: one is kept when a run of {server.name} ends.</p>
              ) : (
                <pre aria-label={`Log of ${server.name}`}>{log.join("\n")}</pre>
              )}
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
