// The www/ page in headless Chromium (Debian's /usr/bin/chromium via playwright-core):
// it imports the web build of the package, shows a budget, and updates it on input.
import test from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";
import { root } from "./helpers.mjs";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

test("the www page loads the package in Chromium and shows a budget", async (t) => {
  const server = createServer((req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url, "http://x").pathname)));
    if (!path.startsWith(root) || !existsSync(path)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  t.after(() => server.close());
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  t.after(() => browser.close());
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`http://127.0.0.1:${server.address().port}/www/index.html`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 15000 });
  assert.equal(await page.textContent('[data-field="hardLimit"]'), "150,000");
  await page.fill("#contextWindow", "64000");
  await page.fill("#maxTokens", "16000");
  assert.equal(await page.textContent('[data-field="hardLimit"]'), "47,616");
  assert.equal(await page.textContent('[data-field="keepRecentTokens"]'), "9,523");
  await page.fill("#contextWindow", "-5");
  assert.match(await page.textContent("#error"), /^INVALID_INPUT: /);
  assert.match(await page.textContent("#version"), /^delegate-context \d/);
  assert.deepEqual(errors, []);
});
