import { createElement } from "react";
import type { ConsoleSection } from "../components/DebugConsolePanel";
import { CompactionsSection, CostSection, LogSection, ModelSection } from "./ConsoleSections";
import "./console.css";

/**
 * The debug console's sections, in display order (the panel shows them as
 * tabs). Each renders from the read-only `ConsoleContext` and fetches the
 * session file's views through read-only commands; nothing here can change
 * the session.
 */
export const consoleSections: ConsoleSection[] = [
  {
    id: "compactions",
    title: "Compactions",
    showsCompactions: true,
    render: (context) => createElement(CompactionsSection, { context }),
  },
  { id: "model", title: "Model view", render: (context) => createElement(ModelSection, { context }) },
  { id: "cost", title: "Cost", render: (context) => createElement(CostSection, { context }) },
  { id: "log", title: "Rounds and events", render: (context) => createElement(LogSection, { context }) },
];
