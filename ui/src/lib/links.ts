// Which links the app may hand to the system browser. Model, tool and file
// text is hostile: a link is only ever opened after the person confirmed the
// exact URL, and only for the schemes below. The Rust command
// (`open_external_link`) checks the same rules again before opening.

/** The only schemes a link may open with; anything else is shown as inert text. */
export const OPENABLE_SCHEMES = ["http:", "https:", "mailto:"] as const;

/** Longer URLs are not opened (the Rust command has the same cap). */
export const MAX_LINK_LENGTH = 8192;

export type LinkTarget =
  | {
      kind: "openable";
      /** The URL as it will be opened: parsed and re-serialised (ASCII, IDN hosts in punycode). */
      url: string;
      /** `https:`, `http:` or `mailto:`. */
      scheme: (typeof OPENABLE_SCHEMES)[number];
      /** The host the browser will contact (punycode); for `mailto:` the address. */
      host: string;
    }
  | { kind: "inert"; reason: string };

function inert(reason: string): LinkTarget {
  return { kind: "inert", reason };
}

/**
 * Classifies a link target from untrusted text. Only absolute http(s) URLs
 * with a host and no user name or password, and mailto: addresses, can be
 * opened; relative URLs (which would resolve against the app itself),
 * `javascript:`, `data:`, `file:`, `vbscript:` and every other scheme cannot.
 */
export function classifyLink(href: string | null | undefined): LinkTarget {
  if (typeof href !== "string" || href.trim() === "") return inert("The link has no address.");
  if (href.length > MAX_LINK_LENGTH) return inert("The link is too long to open.");
  let parsed: URL;
  try {
    // No base: a relative URL throws instead of resolving against the app.
    parsed = new URL(href);
  } catch {
    return inert("Only absolute http, https and mailto links can be opened.");
  }
  const scheme = OPENABLE_SCHEMES.find((allowed) => allowed === parsed.protocol);
  if (!scheme) return inert(`${parsed.protocol.replace(/:$/, "") || "This"} links are not opened.`);
  if (scheme === "mailto:") {
    // Kept percent-encoded: decoding could bring back bidi or control characters.
    const address = parsed.pathname;
    if (!address) return inert("The mail link has no address.");
    return { kind: "openable", url: parsed.href, scheme, host: address };
  }
  if (!parsed.hostname) return inert("The link has no host.");
  if (parsed.username || parsed.password) {
    // `https://trusted.example@evil.example/` reads like the first host but goes to the second.
    return inert("Links with a user name or password are not opened.");
  }
  if (parsed.href.length > MAX_LINK_LENGTH) return inert("The link is too long to open.");
  return { kind: "openable", url: parsed.href, scheme, host: parsed.host };
}

