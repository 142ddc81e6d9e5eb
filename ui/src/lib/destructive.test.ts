import { describe, expect, it } from "vitest";
import { destructiveReasons } from "./destructive";

describe("destructiveReasons", () => {
  it.each([
    ["rm -rf build", "deletes files and folders recursively (rm -r)"],
    ["rm -fr ./target", "deletes files and folders recursively (rm -r)"],
    ["rm --recursive docs", "deletes files and folders recursively (rm -r)"],
    ["rm notes.txt", "deletes files (rm)"],
    ["sudo rm -r /var/cache/app", "deletes files and folders recursively (rm -r)"],
    ["/bin/rm -rf x", "deletes files and folders recursively (rm -r)"],
    ["git reset --hard HEAD~3", "throws away uncommitted changes (git reset --hard)"],
    ["git clean -fdx", "deletes untracked files (git clean)"],
    ["git push --force origin main", "overwrites the remote's history (git push --force)"],
    ["git push -f", "overwrites the remote's history (git push --force)"],
    ["git checkout -- .", "throws away changes to files (git checkout --)"],
    ["git branch -D feature", "deletes a branch that may not be merged (git branch -D)"],
    ["dd if=/dev/zero of=/dev/sda bs=1M", "writes raw data over a file or disk (dd)"],
    ["mkfs.ext4 /dev/sdb1", "formats or repartitions a disk (mkfs.ext4)"],
    ["chmod -R 777 .", "changes the permissions of a whole tree (chmod -R)"],
    ["chown -R me: /srv", "changes the permissions of a whole tree (chown -R)"],
    ["find . -name '*.o' -delete", "deletes every file it finds (find -delete)"],
    ["shred -u secrets.txt", "destroys files beyond recovery (shred)"],
    ["echo '' > src/main.rs", "overwrites src/main.rs (> redirect)"],
    ["cat a 1> b.txt", "overwrites b.txt (> redirect)"],
  ])("%s: %s", (command, reason) => {
    expect(destructiveReasons(command)).toContain(reason);
  });

  it("finds every destructive part of a compound command", () => {
    expect(destructiveReasons("cargo build && rm -rf target; git reset --hard")).toEqual([
      "deletes files and folders recursively (rm -r)",
      "throws away uncommitted changes (git reset --hard)",
    ]);
    expect(destructiveReasons("ls | xargs rm -rf")).toEqual(["deletes files and folders recursively (rm -r)"]);
    expect(destructiveReasons("echo $(rm -rf ~)")).toEqual(["deletes files and folders recursively (rm -r)"]);
  });

  it.each([
    "ls -la",
    "cargo test --locked",
    "git status",
    "git reset HEAD file.txt",
    "git push origin main",
    "git clean -n",
    "chmod +x run.sh",
    "echo hi >> log.txt",
    "make 2>&1 | tee build.log",
    "cargo build > /dev/null",
    "dd if=in.img",
    "grep -rn format src",
    "npm run build",
  ])("%s: nothing destructive", (command) => {
    expect(destructiveReasons(command)).toEqual([]);
  });
});
