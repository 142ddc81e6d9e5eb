import { memo, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { classifyLink } from "../lib/links";
import { CopyButton } from "./CopyButton";

// Model output is untrusted. react-markdown builds React elements from the
// markdown syntax tree and never parses raw HTML (no rehype-raw): a `<script>`
// or `<img onerror>` in the text stays text. Images are shown as links, so
// nothing is fetched on the model's behalf. A link keeps an href only when it
// is an absolute http, https or mailto URL; a click on it is caught by
// `ExternalLinks`, which asks before anything opens. Any other link
// (javascript:, data:, file:, relative, ...) is inert text.

function textOf(node: ReactNode): string {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (node && typeof node === "object" && "props" in node) {
    return textOf((node.props as { children?: ReactNode }).children);
  }
  return "";
}

const components: Components = {
  pre({ children }) {
    const code = textOf(children).replace(/\n$/, "");
    return (
      <div className="code-block">
        <CopyButton text={code} label="Copy code" />
        <pre>{children}</pre>
      </div>
    );
  },
  a({ href, children }) {
    return <LinkOrText href={href}>{children}</LinkOrText>;
  },
  img({ src, alt }) {
    const target = typeof src === "string" ? src : "";
    return (
      <LinkOrText href={target} className="image-link">
        {alt || target || "image"}
      </LinkOrText>
    );
  },
};

/** An anchor for a link that may be opened (after confirmation), else inert text. */
function LinkOrText({ href, className, children }: { href: string | undefined; className?: string; children: ReactNode }) {
  const target = classifyLink(href);
  if (target.kind === "inert") {
    return (
      <span className={`inert-link${className ? ` ${className}` : ""}`} title={target.reason}>
        {children}
      </span>
    );
  }
  return (
    <a href={target.url} className={className} title={target.url} rel="noreferrer noopener">
      {children}
    </a>
  );
}

// The raw destination reaches `LinkOrText`, which decides; react-markdown's
// own filter would blank unsafe ones and lose the reason.
const keepUrl = (url: string) => url;

interface MarkdownProps {
  text: string;
}

/** Renders model or user markdown safely, with highlighted, copyable code. */
export const Markdown = memo(function Markdown({ text }: MarkdownProps) {
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        rehypePlugins={[rehypeHighlight]}
        components={components}
        urlTransform={keepUrl}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});
