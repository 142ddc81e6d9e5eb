import { mockIPC } from "@tauri-apps/api/mocks";

/**
 * A command's IPC arguments as a fake shell reads them: the fields of the request `call` sent
 * (`{ request, on_event? }`), with the `on_event` channel of a command with events beside them.
 * A plugin's arguments (`plugin:…`) are not wrapped and stay as they are.
 */
export function requestArgs(cmd: string, raw: unknown): Record<string, unknown> {
  const args = (raw ?? {}) as Record<string, unknown>;
  if (cmd.startsWith("plugin:")) return args;
  const { request, ...rest } = args;
  return { ...(request as Record<string, unknown>), ...rest };
}

/** `mockIPC` whose answer gets `requestArgs`. */
export function mockShell(answer: (cmd: string, args: Record<string, unknown>) => unknown) {
  mockIPC((cmd, raw) => answer(cmd, requestArgs(cmd, raw)));
}
