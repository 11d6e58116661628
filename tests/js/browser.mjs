// Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by
// playwright-core, and a static HTTP server on 127.0.0.1 (a directory plus in-memory
// routes). Both are closed by the test's `t.after`.
import { createServer } from "node:http";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve } from "node:path";
import { chromium } from "playwright-core";
import { root } from "./helpers.mjs";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".jsonl": "application/jsonl",
};

export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run",
];

/** Where tests save screenshots (gitignored). */
export const screenshotDir = resolve(root, "target/screenshots");

/**
 * Serves `dir` (default: the repository root) and `routes` (`{"/path": string | Buffer}`)
 * on a free port; resolves with the base URL.
 */
export async function serve(t, { dir = root, routes = {} } = {}) {
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (pathname in routes) {
      res.writeHead(200, { "content-type": TYPES[extname(pathname)] ?? "application/octet-stream" }).end(routes[pathname]);
      return;
    }
    const path = normalize(join(dir, pathname));
    if (!path.startsWith(dir) || !existsSync(path) || !statSync(path).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  t.after(() => server.close());
  return `http://127.0.0.1:${server.address().port}`;
}

/** A headless Chromium browser, closed after the test. */
export async function launch(t) {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  t.after(() => browser.close());
  return browser;
}

/** A new page that collects uncaught page errors and console errors into `errors`. */
export async function newPage(browser, errors = []) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  return page;
}

/** Saves a full-page screenshot as target/screenshots/<name>.png and returns the path. */
export async function screenshot(page, name) {
  mkdirSync(screenshotDir, { recursive: true });
  const path = resolve(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
