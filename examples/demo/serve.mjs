// `--serve`: a tiny static server for the repository root on 127.0.0.1, so that the
// inspector (www/index.html, on the package's web build) can open the demo's files.
import { createServer } from "node:http";
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
  ".wasm": "application/wasm", ".json": "application/json", ".jsonl": "application/jsonl", ".png": "image/png",
};

/** Serves `dir` on 127.0.0.1:`port` (a free port when it is taken); resolves with the server and its base URL. */
export async function serve(dir, port = 8000) {
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const path = normalize(join(dir, pathname));
    if ((path !== dir && !path.startsWith(dir + sep)) || !existsSync(path) || !statSync(path).isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream", "cache-control": "no-store" }).end(readFileSync(path));
  });
  await new Promise((resolve, reject) => {
    server.once("error", (e) => {
      if (e.code !== "EADDRINUSE" || port === 0) return reject(e);
      server.listen(0, "127.0.0.1", resolve); // the port is taken: any free one
    });
    server.listen(port, "127.0.0.1", resolve);
  });
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}
