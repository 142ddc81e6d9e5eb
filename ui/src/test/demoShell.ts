import { demoSettings, shellPage, shellSessions, shellView } from "./fixtures";
import { mockShell } from "./shell";

/**
 * A shell on the demo profile listing the fixture sessions, which open and show their transcripts;
 * it returns them. `consoleWidth` is the width `app_info` says was kept; every `save_layout` lands
 * in `savedLayouts`.
 */
export function demoShell({ consoleWidth, savedLayouts }: { consoleWidth?: number; savedLayouts?: unknown[] } = {}) {
  const sessions = shellSessions();
  const find = (id: unknown) => sessions.find((x) => x.summary.id === id)!;
  mockShell((cmd, args) => {
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: demoSettings.profiles[0], is_demo: true, ...(consoleWidth ? { console_width: consoleWidth } : {}) };
      case "save_layout":
        savedLayouts?.push(args);
        return null;
      case "get_settings":
        return demoSettings;
      case "watch_library":
        return null;
      case "list_sessions":
        return { v: 1, sessions: sessions.map((s) => s.summary), total: sessions.length };
      case "open_session":
        return shellView(find(args.session_id));
      case "open_transcript":
        return shellPage(find(args.session_id));
      default:
        return null;
    }
  });
  return sessions;
}
