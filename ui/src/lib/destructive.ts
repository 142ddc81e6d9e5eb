// Which shell commands can destroy work, said in plain words for the approval card. A pure,
// deliberately cautious reading of the command text (the model's, so hostile): it over-warns
// rather than miss, and never decides anything but how loudly the card warns.

/** Words that run the next word as the command. */
const WRAPPERS = new Set(["sudo", "doas", "env", "nohup", "time", "exec", "command", "nice", "xargs", "builtin"]);

/** The simple commands of a command line: split at `;`, `&&`, `||`, `|`, `&`, newlines and substitutions. */
function segments(command: string): string[][] {
  return command
    .split(/;|&&|\|\||\||&(?!>)|\n|\$\(|`|\(|\)/)
    .map((part) =>
      part
        .trim()
        .split(/\s+/)
        .map((word) => word.replace(/^['"]|['"]$/g, ""))
        .filter(Boolean),
    )
    .filter((words) => words.length > 0);
}

/** The program and its arguments, past `sudo`, `env X=1` and the like. */
function program(words: string[]): { name: string; args: string[] } | null {
  let at = 0;
  while (at < words.length) {
    const word = words[at] ?? "";
    if (WRAPPERS.has(word) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || (at > 0 && word.startsWith("-") && WRAPPERS.has(words[at - 1] ?? ""))) {
      at += 1;
      continue;
    }
    break;
  }
  const name = words[at];
  if (name === undefined) return null;
  return { name: name.split("/").pop() ?? name, args: words.slice(at + 1) };
}

/** Whether short flags (`-rf`) or a long one name `letter` / `long`. */
function hasFlag(args: string[], letters: string, long?: string): boolean {
  return args.some(
    (arg) => (long !== undefined && arg === `--${long}`) || (/^-[A-Za-z]+$/.test(arg) && [...letters].some((letter) => arg.includes(letter))),
  );
}

function gitReason(args: string[]): string | null {
  const [sub, ...rest] = args.filter((arg, i) => !(i === 0 && arg.startsWith("-")));
  if (sub === "reset" && rest.includes("--hard")) return "throws away uncommitted changes (git reset --hard)";
  if (sub === "clean" && hasFlag(rest, "fdxX", "force")) return "deletes untracked files (git clean)";
  if (sub === "push" && (hasFlag(rest, "f", "force") || rest.some((a) => a.startsWith("--force") || a.startsWith("+")))) {
    return "overwrites the remote's history (git push --force)";
  }
  if (sub === "checkout" && rest.includes("--")) return "throws away changes to files (git checkout --)";
  if (sub === "restore") return "throws away changes to files (git restore)";
  if (sub === "branch" && rest.some((a) => a === "-D" || (a.startsWith("-") && !a.startsWith("--") && a.includes("D")))) {
    return "deletes a branch that may not be merged (git branch -D)";
  }
  if (sub === "stash" && (rest[0] === "drop" || rest[0] === "clear")) return "deletes stashed changes (git stash drop)";
  return null;
}

function reasonOf(name: string, args: string[]): string | null {
  switch (name) {
    case "rm":
      return hasFlag(args, "rR", "recursive") ? "deletes files and folders recursively (rm -r)" : "deletes files (rm)";
    case "rmdir":
      return "deletes folders (rmdir)";
    case "shred":
      return "destroys files beyond recovery (shred)";
    case "unlink":
      return "deletes a file (unlink)";
    case "truncate":
      return "cuts files short (truncate)";
    case "dd":
      return args.some((arg) => arg.startsWith("of=")) ? "writes raw data over a file or disk (dd)" : null;
    case "chmod":
    case "chown":
    case "chgrp":
      return hasFlag(args, "R", "recursive") ? `changes the permissions of a whole tree (${name} -R)` : null;
    case "find":
      return args.includes("-delete") || (args.includes("-exec") && args.some((a) => a === "rm" || a.endsWith("/rm")))
        ? "deletes every file it finds (find -delete)"
        : null;
    case "git":
      return gitReason(args);
    default:
      return /^mkfs(\.|$)/.test(name) || name === "wipefs" || name === "fdisk" || name === "parted"
        ? `formats or repartitions a disk (${name})`
        : null;
  }
}

/** `> file` (not `>>`, not a copy of another stream, not /dev/null) replaces the file's contents. */
function redirectReasons(command: string): string[] {
  const found: string[] = [];
  for (const match of command.matchAll(/(^|[^>&0-9])(?:1)?>(?![>&])\s*([^\s;&|<>]+)/g)) {
    const target = (match[2] ?? "").replace(/^['"]|['"]$/g, "");
    if (target && target !== "/dev/null") found.push(`overwrites ${target} (> redirect)`);
  }
  return found;
}

/** What a shell command could destroy, in plain words; empty when nothing stands out. */
export function destructiveReasons(command: string): string[] {
  const reasons: string[] = [];
  for (const words of segments(command)) {
    const run = program(words);
    const reason = run ? reasonOf(run.name, run.args) : null;
    if (reason) reasons.push(reason);
  }
  reasons.push(...redirectReasons(command));
  return [...new Set(reasons)];
}
