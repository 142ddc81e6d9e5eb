import { useEffect, useState, type ReactNode } from "react";
import { classifyLink, type LinkTarget } from "../lib/links";
import { ConfirmDialog } from "./Modal";

type Openable = Extract<LinkTarget, { kind: "openable" }>;

interface PendingLink {
  target: Openable;
  /** What the link said it was (its text), when that differs from where it goes. */
  claimed: string | null;
}

/** A host-looking start of the link's text, e.g. "example.com" in "https://example.com/x". */
function claimedHost(text: string): string | null {
  const match = /^\s*(?:[a-z][a-z0-9+.-]*:\/\/)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)/i.exec(text);
  return match?.[1]?.toLowerCase() ?? null;
}

function differentClaim(text: string, target: Openable): string | null {
  if (target.scheme === "mailto:") return null;
  const claimed = claimedHost(text);
  if (!claimed) return null;
  const host = new URL(target.url).hostname.replace(/^www\./, "");
  return claimed === host ? null : claimed;
}

interface ExternalLinksProps {
  children: ReactNode;
  /** Hands a confirmed URL to the system (the `open_external_link` command). */
  open: (url: string) => Promise<void>;
  onError: (error: unknown) => void;
}

/**
 * Every link click in the window lands here: the webview never follows a
 * link itself. An http, https or mailto link opens in the system's browser
 * only after the person confirmed its full address; any other link does
 * nothing.
 */
export function ExternalLinks({ children, open, onError }: ExternalLinksProps) {
  const [pending, setPending] = useState<PendingLink | null>(null);

  useEffect(() => {
    const onClick = (event: MouseEvent) => {
      const anchor = event.target instanceof Element ? event.target.closest("a") : null;
      if (!anchor) return;
      event.preventDefault();
      // A middle click (auxclick) opens nothing; only a plain click asks.
      if (event.type !== "click") return;
      const target = classifyLink(anchor.getAttribute("href"));
      if (target.kind === "openable") {
        setPending({ target, claimed: differentClaim(anchor.textContent ?? "", target) });
      }
    };
    // Capture, so no other handler can let the default action through.
    document.addEventListener("click", onClick, true);
    document.addEventListener("auxclick", onClick, true);
    return () => {
      document.removeEventListener("click", onClick, true);
      document.removeEventListener("auxclick", onClick, true);
    };
  }, []);

  return (
    <>
      {children}
      {pending && (
        <LinkConfirmDialog
          pending={pending}
          onCancel={() => setPending(null)}
          onOpen={() => {
            setPending(null);
            open(pending.target.url).catch(onError);
          }}
        />
      )}
    </>
  );
}

const SCHEME_NOTE: Record<Openable["scheme"], string> = {
  "https:": "Encrypted connection (https)",
  "http:": "Unencrypted connection (http)",
  "mailto:": "Opens your mail app to write to",
};

interface LinkConfirmDialogProps {
  pending: PendingLink;
  onOpen: () => void;
  onCancel: () => void;
}

/** Shows where a link really goes (scheme, host, the whole URL) before anything opens. */
export function LinkConfirmDialog({ pending, onOpen, onCancel }: LinkConfirmDialogProps) {
  const { target, claimed } = pending;
  const isMail = target.scheme === "mailto:";
  return (
    <ConfirmDialog
      title={isMail ? "Write an email?" : "Open this link in your browser?"}
      confirmLabel={isMail ? "Open mail app" : "Open in browser"}
      className="link-dialog"
      onConfirm={onOpen}
      onCancel={onCancel}
      message={
        <div className="link-confirm" data-testid="link-confirm">
          <div className="link-destination">
            <span className={`link-scheme scheme-${target.scheme.replace(":", "")}`}>{target.scheme.replace(":", "")}</span>
            <span className="link-host" data-testid="link-host">
              {target.host}
            </span>
          </div>
          <p className="link-scheme-note">{SCHEME_NOTE[target.scheme]}</p>
          {claimed && (
            <p className="link-warning" role="alert">
              The link&apos;s text says <strong>{claimed}</strong>, but it goes to <strong>{target.host}</strong>.
            </p>
          )}
          <div className="link-url-label">Full address</div>
          <code className="link-url" data-testid="link-url">
            {target.url}
          </code>
          <p className="muted link-hint">
            This link came from the conversation. Open it only if you trust where it goes.
          </p>
        </div>
      }
    />
  );
}
