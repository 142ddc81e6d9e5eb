import { useEffect, useId, useRef } from "react";
import type { ApprovalDecision } from "../api/types";
import { approvalAction } from "../lib/approvalWords";
import { destructiveReasons } from "../lib/destructive";
import { isMcpTool, mcpRuleParts, shortFingerprint } from "../lib/mcpRule";
import { isSandboxed, sandboxHint } from "../lib/sandbox";
import type { SandboxMode } from "../bindings/SandboxMode";

interface ApprovalPromptProps {
  tool: string;
  summary: string;
  detail: string;
  /** Absent in a read-only session: the prompt is shown without buttons. */
  onDecide?: (decision: ApprovalDecision) => void;
  /** The session's sandbox: what an allowed shell command can reach. */
  sandbox?: SandboxMode | null;
  /** What a sandboxed command reaches on the network (`network off`). */
  network?: string | null;
  /** What "Always allow" would save to the workspace's rules (`cargo test*`, `github/search@sha256:…`); empty: not offered. */
  proposedRules?: string[];
}

/** The rules as the button and its note show them: each in code, joined (an MCP rule by its names). */
function RuleList({ rules, mcp }: { rules: string[]; mcp: boolean }) {
  return (
    <>
      {rules.map((rule, index) => (
        <span key={rule}>
          {index > 0 && (index === rules.length - 1 ? " and " : ", ")}
          <code>{mcp ? mcpRuleParts(rule).names : rule}</code>
        </span>
      ))}
    </>
  );
}

/** What "Always allow" saves, in words: an MCP tool's rule holds for its server's launch command as it is. */
function AlwaysAllowNote({ id, rules, mcp }: { id: string; rules: string[]; mcp: boolean }) {
  const fingerprint = mcp ? mcpRuleParts(rules[0] ?? "").fingerprint : null;
  return (
    <p className="approval-rule-note" id={id} data-testid="always-allow-note">
      Always allow saves {rules.length === 1 ? "the rule" : "the rules"} <RuleList rules={rules} mcp={mcp} /> to this workspace&rsquo;s{" "}
      <code>.strata/rules.toml</code>:{" "}
      {mcp ? (
        <>
          later calls of this tool run without asking while the server runs the same launch command
          {fingerprint && (
            <>
              {" "}
              (<code title={fingerprint}>{shortFingerprint(fingerprint)}</code>)
            </>
          )}
          ; if its command changes, Strata asks again.
        </>
      ) : (
        <>later commands {rules.length === 1 ? "it matches" : "they match"} run without asking.</>
      )}{" "}
      Edit or remove it in Settings, Rules.
    </p>
  );
}

function DetailView({ detail }: { detail: string }) {
  const lines = detail.replace(/\n$/, "").split("\n");
  const isDiff = lines.some((line) => line.startsWith("@@") || line.startsWith("+++"));
  return (
    <pre className="approval-detail" aria-label="What will happen">
      {isDiff
        ? lines.map((line, index) => (
            <span
              key={index}
              className={
                line.startsWith("+") && !line.startsWith("+++")
                  ? "diff-add"
                  : line.startsWith("-") && !line.startsWith("---")
                    ? "diff-del"
                    : line.startsWith("@@")
                      ? "diff-hunk"
                      : undefined
              }
            >
              {line}
              {"\n"}
            </span>
          ))
        : detail}
    </pre>
  );
}

/** What an approved shell command can do (the settings say it in short). */
export const SHELL_RIGHTS_SHORT = "runs as you, with your rights, outside any sandbox.";
const SHELL_RIGHTS_WARNING = `${SHELL_RIGHTS_SHORT.slice(0, -1)}: it can read, change or delete anything your account can, and reach the network.`;

/** The tools whose approval gives the model a command line. */
const SHELL_TOOLS = new Set(["run_shell"]);

const NO_RULES: string[] = [];

/**
 * An inline request to run a tool call: allow once, for the session, always (a shell command's or
 * MCP tool's proposed rule, shown before it is saved), or deny. Its Y / A / R / N keys work anywhere while it
 * waits and the composer is empty (see `useApprovalKeys`), not only here.
 */
export function ApprovalPrompt({ tool, summary, detail, onDecide, sandbox = null, network = null, proposedRules = NO_RULES }: ApprovalPromptProps) {
  const first = useRef<HTMLButtonElement>(null);
  const noteId = useId();
  useEffect(() => {
    // Take the keyboard unless the person is typing somewhere.
    const active = document.activeElement;
    if (!(active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement)) {
      first.current?.focus({ preventScroll: true });
    }
  }, []);
  const said = approvalAction(tool, summary, detail);
  const shell = SHELL_TOOLS.has(tool);
  const mcp = isMcpTool(tool);
  const dangers = shell ? destructiveReasons(detail) : [];
  return (
    <div className={`approval${dangers.length > 0 ? " approval-destructive" : ""}`} role="group" aria-label={`Approval needed for ${tool}`}>
      <p className="approval-title" data-testid="approval-action">
        <strong>{said.action}</strong>
      </p>
      {said.where && <p className="approval-where">in {said.where}</p>}
      {said.detail && <DetailView detail={said.detail} />}
      {dangers.length > 0 && (
        <div className="approval-danger" data-testid="destructive-warning">
          <span className="approval-danger-icon" aria-hidden="true">
            ⚠
          </span>
          <div>
            <strong>Destructive command.</strong> If you allow it, it {dangers.length === 1 ? dangers[0] : "will:"}
            {dangers.length > 1 && (
              <ul>
                {dangers.map((danger) => (
                  <li key={danger}>{danger}</li>
                ))}
              </ul>
            )}
            {dangers.length === 1 && "."} This cannot be undone from Strata.
          </div>
        </div>
      )}
      {shell && isSandboxed(sandbox) && (
        <p className="approval-sandboxed" data-testid="shell-sandboxed">
          <strong>Sandboxed ({sandbox}).</strong> {sandboxHint(sandbox)}
          {network && <span data-testid="shell-network"> {`${network.charAt(0).toUpperCase()}${network.slice(1)}.`}</span>}
        </p>
      )}
      {shell && !isSandboxed(sandbox) && (
        <p className="approval-warning" data-testid="shell-warning">
          <span className="approval-warning-icon" aria-hidden="true">
            !
          </span>
          <span>
            <strong>Not sandboxed.</strong> If you allow it, this command {SHELL_RIGHTS_WARNING}
          </span>
        </p>
      )}
      {onDecide ? (
        <div className="approval-actions">
          <button ref={first} type="button" className="button primary" data-approval-first onClick={() => onDecide("allow_once")}>
            Allow once <kbd>Y</kbd>
          </button>
          <button type="button" className="button" onClick={() => onDecide("allow_for_session")}>
            Allow for session <kbd>A</kbd>
          </button>
          {proposedRules.length > 0 && (
            <button
              type="button"
              className="button"
              aria-label={`Always allow ${mcp ? proposedRules.map((rule) => mcpRuleParts(rule).names).join(", ") : proposedRules.join(", ")}`}
              aria-describedby={`always-note-${noteId}`}
              onClick={() => onDecide("always_allow")}
            >
              Always allow <RuleList rules={proposedRules} mcp={mcp} /> <kbd>R</kbd>
            </button>
          )}
          <button type="button" className="button danger" onClick={() => onDecide("deny")}>
            Deny <kbd>N</kbd>
          </button>
        </div>
      ) : (
        <p className="muted">Another Strata process holds this session: answer it there.</p>
      )}
      {onDecide && proposedRules.length > 0 && <AlwaysAllowNote id={`always-note-${noteId}`} rules={proposedRules} mcp={mcp} />}
    </div>
  );
}
