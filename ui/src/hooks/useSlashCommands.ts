import { useCallback, useEffect, useRef, useState } from "react";
import * as api from "../api/commands";
import type { SlashCommand } from "../bindings/SlashCommand";
import type { PaletteCommand } from "../components/SlashPalette";

const toPalette = (command: SlashCommand): PaletteCommand => ({
  name: command.name,
  description: command.description,
  argumentHint: command.argument_hint,
  source: command.source,
  file: command.file,
});

/** What the app runs whatever the folders hold: offered when the listing cannot be read. */
const COMPACT: PaletteCommand = {
  name: "compact",
  description: "Compact the history now; the text after it guides the summary",
  argumentHint: "[focus]",
  source: "built_in",
};

/**
 * The slash commands of a session in `workspace` (`list_slash_commands`): read when the
 * conversation opens and again on `refresh` (each time the palette opens, so a prompt file just
 * written is there). `undefined` until the first answer.
 */
export function useSlashCommands(workspace: string) {
  const [commands, setCommands] = useState<PaletteCommand[] | undefined>(undefined);
  const asked = useRef(0);
  const refresh = useCallback(() => {
    const ask = ++asked.current;
    api
      .listSlashCommands(workspace)
      .then((listed) => {
        if (ask === asked.current) setCommands(listed.commands.map(toPalette));
      })
      .catch(() => {
        // The folder may be gone: /compact still works, prompt files cannot.
        if (ask === asked.current) setCommands((held) => held ?? [COMPACT]);
      });
  }, [workspace]);
  useEffect(() => {
    refresh();
    return () => {
      asked.current += 1;
    };
  }, [refresh]);
  return { commands, refresh };
}
