import { useMemo, type ComponentProps } from "react";
import { DebugConsolePanel, type ConsoleContext } from "../components/DebugConsolePanel";
import { useAppState } from "../state/StoreProvider";
import { consoleSections } from "./sections";

export type ConsoleDockProps = Omit<ComponentProps<typeof DebugConsolePanel>, "context" | "sections"> & {
  context: Omit<ConsoleContext, "transcript">;
};

/** The debug console, with the transcript it reads selected here, so only the console follows a streamed answer. */
export function ConsoleDock({ context, ...panel }: ConsoleDockProps) {
  const transcript = useAppState((s) => s.transcript);
  const full = useMemo(() => ({ ...context, transcript }), [context, transcript]);
  return <DebugConsolePanel context={full} sections={consoleSections} {...panel} />;
}
