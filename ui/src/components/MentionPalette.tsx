import type { WorkspaceFile } from "../bindings/WorkspaceFile";
import "./SlashPalette.css";

/**
 * The `@` mention the caret is in: an `@` at the start or after whitespace, and the text typed
 * after it up to the caret (no whitespace, no opening quote). `start` is the `@`'s index.
 */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const start = before.lastIndexOf("@");
  if (start === -1) return null;
  if (start > 0 && !/\s/.test(before.charAt(start - 1))) return null;
  const query = before.slice(start + 1);
  if (/\s/.test(query) || query.startsWith('"')) return null;
  return { start, query };
}

/** How a chosen path is written after the `@`: quoted when it holds whitespace (as the app reads it). */
export const mentionText = (path: string) => (/\s/.test(path) ? `@"${path}"` : `@${path}`);

/**
 * The paths the text mentions as the app reads them (`strata_core::mentions`): `@path` up to the
 * next whitespace, sentence punctuation after it not included, or `@"a path"`; each once.
 */
export function mentionedPaths(text: string): string[] {
  const found: string[] = [];
  const pattern = /(^|\s)@(?:"([^"]*)"|(\S+))/g;
  for (const match of text.matchAll(pattern)) {
    const path = match[2] ?? (match[3] ?? "").replace(/[.,;:!?)]+$/, "");
    if (path && !found.includes(path)) found.push(path);
  }
  return found;
}

interface MentionPaletteProps {
  id: string;
  files: readonly WorkspaceFile[] | undefined;
  active: number;
  onChoose: (file: WorkspaceFile) => void;
  onActivate: (index: number) => void;
}

export const mentionOptionId = (listId: string, index: number) => `${listId}-file-${index}`;

/**
 * The composer's `@` finder: the workspace paths that match what was typed (the listbox of the
 * composer's ARIA combobox, as the slash palette is). Paths come from the disk: shown as text only.
 */
export function MentionPalette({ id, files, active, onChoose, onActivate }: MentionPaletteProps) {
  return (
    <ul id={id} role="listbox" aria-label="Files" className="slash-palette">
      {files === undefined ? (
        <li className="slash-empty" role="presentation">
          Looking for files…
        </li>
      ) : files.length === 0 ? (
        <li className="slash-empty" role="presentation">
          No file in the workspace matches.
        </li>
      ) : (
        files.map((file, index) => (
          <li
            key={file.path}
            id={mentionOptionId(id, index)}
            role="option"
            aria-selected={index === active}
            className={`slash-option mention-option${index === active ? " active" : ""}`}
            title={file.path}
            onMouseDown={(event) => event.preventDefault()}
            onMouseEnter={() => onActivate(index)}
            onClick={() => onChoose(file)}
          >
            <span className="slash-name">{file.path}</span>
            <span className="slash-description" />
            <span className="badge slash-badge">{file.is_dir ? "folder" : "file"}</span>
          </li>
        ))
      )}
    </ul>
  );
}
