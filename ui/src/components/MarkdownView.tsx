import { memo, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { classifyLink } from "../lib/links";
import { splitSettled } from "../lib/markdownBlocks";
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

// react-markdown attaches its plugins again on every render, and
// rehype-highlight registers its three dozen grammars each time it is
// attached: made once here, its (stateless) transformer is reused, so a
// message costs its parse, not a highlighter's set-up.
const highlight = rehypeHighlight();
const remarkPlugins = [remarkGfm];
const rehypePlugins = [() => highlight];

interface MarkdownProps {
  text: string;
}

/** The elements of `text`, parsed; memoised, so an unchanged text is not parsed again. */
const MarkdownBody = memo(function MarkdownBody({ text }: MarkdownProps) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components} urlTransform={keepUrl}>
      {text}
    </ReactMarkdown>
  );
});

/** Renders model or user markdown safely, with highlighted, copyable code (loaded on demand: see Markdown.tsx). */
export const MarkdownView = memo(function MarkdownView({ text }: MarkdownProps) {
  return (
    <div className="markdown">
      <MarkdownBody text={text} />
    </div>
  );
});

/**
 * Markdown still streaming: its settled blocks are parsed once each, only the growing last one
 * on every update (`splitSettled`), so a long answer costs each frame what its last paragraph costs.
 */
export const StreamingMarkdownView = memo(function StreamingMarkdownView({ text }: MarkdownProps) {
  const { settled, tail } = splitSettled(text);
  return (
    <div className="markdown">
      {settled.map((block, index) => (
        // A settled block keeps its place and its text: its index is its identity.
        <MarkdownBody key={index} text={block} />
      ))}
      <MarkdownBody key="tail" text={tail} />
    </div>
  );
});
