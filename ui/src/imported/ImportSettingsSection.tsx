import { useId, useState } from "react";
import type { ImportSettings } from "../bindings/ImportSettings";
import type { ImportSettingsView } from "../bindings/ImportSettingsView";
import type { ImportSource } from "../bindings/ImportSource";
import { SOURCES, SOURCE_LABEL } from "./api";

interface ImportSettingsSectionProps {
  view: ImportSettingsView;
  /** Saved at once (like the rules), not with the dialog's Save. */
  onSave: (settings: ImportSettings) => void;
}

/** "Other agents' sessions": each tool's standard folders on or off, and the folders added. */
export function ImportSettingsSection({ view, onSave }: ImportSettingsSectionProps) {
  const ids = useId();
  const [folder, setFolder] = useState("");
  const { settings, found } = view;
  const counts: Record<ImportSource, number> = { codex: found.codex, claude_code: found.claude_code, copilot_cli: found.copilot_cli };
  const save = (change: Partial<ImportSettings>) => onSave({ ...settings, asked: true, ...change });
  const toggle = (source: ImportSource, on: boolean) =>
    save({ tools: on ? [...settings.tools.filter((t) => t !== source), source] : settings.tools.filter((t) => t !== source) });
  const trimmed = folder.trim();
  const absolute = trimmed.startsWith("/") || /^[A-Za-z]:[\\/]/.test(trimmed);
  return (
    <section className="settings-section" aria-labelledby={`${ids}-heading`}>
      <h3 id={`${ids}-heading`}>Other agents' sessions</h3>
      <p className="muted">Codex, Claude Code and Copilot sessions in your library, read-only: Strata never writes, moves or deletes their files.</p>
      <fieldset className="import-tools">
        <legend>Standard folders</legend>
        {SOURCES.map((source) => (
          <label key={source} className="checkbox-row">
            <input type="checkbox" checked={settings.tools.includes(source)} onChange={(event) => toggle(source, event.target.checked)} />
            {SOURCE_LABEL[source]} <span className="muted">({counts[source]} found)</span>
          </label>
        ))}
      </fieldset>
      <fieldset className="import-tools">
        <legend>Added folders and files</legend>
      {settings.extra_paths.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="import-paths">
          {settings.extra_paths.map((path) => (
            <li key={path}>
              <code>{path}</code>
              <button type="button" className="button small" aria-label={`Remove ${path}`} onClick={() => save({ extra_paths: settings.extra_paths.filter((p) => p !== path) })}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="import-add"
        onSubmit={(event) => {
          event.preventDefault();
          if (!absolute || settings.extra_paths.includes(trimmed)) return;
          save({ extra_paths: [...settings.extra_paths, trimmed] });
          setFolder("");
        }}
      >
        <label htmlFor={`${ids}-folder`}>Add a folder</label>
        <input id={`${ids}-folder`} type="text" placeholder="/path/to/sessions" value={folder} onChange={(event) => setFolder(event.target.value)} />
        <button type="submit" className="button small" disabled={!absolute}>
          Add
        </button>
      </form>
      </fieldset>
    </section>
  );
}
