import { memo, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { CopyButton } from "./CopyButton";

// Model output is untrusted. react-markdown builds React elements from the
// markdown syntax tree and never parses raw HTML (no rehype-raw): a `<script>`
// or `<img onerror>` in the text stays text. Links open outside the app and
// images are shown as links, so nothing is fetched on the model's behalf.

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
    return (
      <a href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    );
  },
  img({ src, alt }) {
    const target = typeof src === "string" ? src : "";
    return (
      <a href={target} target="_blank" rel="noreferrer noopener" className="image-link">
        {alt || target || "image"}
      </a>
    );
  },
};

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
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});
