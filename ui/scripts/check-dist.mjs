// Fails when the production bundle contains the browser-preview backend.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = new URL("../dist/assets/", import.meta.url).pathname;
const markers = ["The preview backend does not know", "Streaming JSON parser for ingest"];
const leaks = readdirSync(dir)
  .filter((name) => name.endsWith(".js"))
  .filter((name) => markers.some((marker) => readFileSync(join(dir, name), "utf8").includes(marker)));
if (leaks.length) {
  console.error(`dist contains the mock backend: ${leaks.join(", ")}`);
  process.exit(1);
}
console.log("dist: no mock backend in the production bundle");
