import { save } from "@tauri-apps/plugin-dialog";
import { writeTextFile } from "@tauri-apps/plugin-fs";
import type { ExportFormat } from "../bindings/ExportFormat";
import { call } from "./commands";

/**
 * Asks which folder a new session works in; `null` when cancelled. The shell opens the picker
 * (`pick_workspace`), so the chosen folder is not put in the webview's file-system scope.
 */
export async function pickWorkspace(): Promise<string | null> {
  return (await call("pick_workspace", {})) ?? null;
}

/**
 * Asks where to save an export; `null` when cancelled. The save dialog allows the webview to
 * write exactly the chosen file, and nothing else.
 */
export async function pickExportPath(title: string, format: ExportFormat): Promise<string | null> {
  const extension = format === "md" ? "md" : "jsonl";
  const safe = title.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "session";
  return save({
    title: "Export session",
    defaultPath: `${safe}.${extension}`,
    filters: [
      format === "md"
        ? { name: "Markdown", extensions: ["md"] }
        : { name: "JSON Lines", extensions: ["jsonl"] },
    ],
  });
}

/** Writes an export to the file the person chose in `pickExportPath`, through the fs plugin. */
export async function writeExport(path: string, text: string): Promise<void> {
  await writeTextFile(path, text);
}
