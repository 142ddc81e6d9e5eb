import { memo } from "react";
import { lazyModule, useLazyModule } from "../lib/lazyModule";

/**
 * react-markdown, its GFM plugin and highlight.js: near half the script,
 * and nothing the first paint or an idle window shows: loaded when the first
 * message is rendered (the text shows plain until then), so a window left on
 * its sidebar never holds it.
 */
export const markdownRenderer = lazyModule(() => import("./MarkdownView"));

/** The text as it is, until the renderer has loaded. */
function Pending({ text }: { text: string }) {
  return <div className="markdown markdown-pending">{text}</div>;
}

/** Renders model or user markdown safely, with highlighted, copyable code. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const renderer = useLazyModule(markdownRenderer);
  return renderer ? <renderer.MarkdownView text={text} /> : <Pending text={text} />;
});

/** Markdown still streaming: its settled blocks parsed once each (see MarkdownView.tsx). */
export const StreamingMarkdown = memo(function StreamingMarkdown({ text }: { text: string }) {
  const renderer = useLazyModule(markdownRenderer);
  return renderer ? <renderer.StreamingMarkdownView text={text} /> : <Pending text={text} />;
});
