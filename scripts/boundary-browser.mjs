// The boundary tests (tests/wasm, the library built for wasm32 with its wasm-bindgen glue)
// in a headless browser, Chromium or Firefox, on the glue users get.
//
// The wasm-bindgen test runner only serves the page (`NO_HEADLESS`: its interactive mode)
// and keeps its generated files (`WASM_BINDGEN_KEEP_TEST_BUILD`); this script patches
// the generated glue with scripts/glue-patch.cjs, the package's one post-processing
// (issue 17 §6: the shipped glue is the tested glue), then opens the page, waits for the
// harness's result line and exits 0 only when at least one test ran and all passed. A
// page that never shows a result is retried (in a new browser) up to three times; a test
// failure never is.
//
// Why not the runner's own headless mode: it navigates at once, with no moment to patch
// the glue; and through chromedriver the test page sometimes never finished loading
// ("Loading scripts...", then "Timed out receiving message from renderer" after 300 s: a
// fresh-clone run lost 15 minutes on it), while the same Chromium launched by
// playwright-core (tests/js/browser.mjs) loads every page. Chromium is driven by
// playwright-core, Firefox by geckodriver through a few WebDriver requests.
//
//   node scripts/boundary-browser.mjs chrome|firefox   (from the repository root; test.sh
//   sets the runner)
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "../tests/js/browser.mjs";
import glue from "./glue-patch.cjs";

const ATTEMPTS = 3;
const RESULT_WAIT_MS = 240_000; // the suite takes ~8 s alone; generous for a loaded machine
const SERVE_WAIT_MS = 600_000;
const browserName = process.argv[2];
if (browserName !== "chrome" && browserName !== "firefox") {
  console.error("usage: node scripts/boundary-browser.mjs chrome|firefox");
  process.exit(2);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Start the runner's server; resolves with [child, url, dir of its generated files] once it listens. */
async function startServer() {
  const port = await freePort();
  const child = spawn("cargo", ["test", "--target", "wasm32-unknown-unknown", "--features", "boundary-tests", "--test", "wasm"], {
    env: {
      ...process.env,
      NO_HEADLESS: "1",
      WASM_BINDGEN_KEEP_TEST_BUILD: "1",
      WASM_BINDGEN_USE_BROWSER: "1",
      WASM_BINDGEN_TEST_ONLY_WEB: "1",
      WASM_BINDGEN_TEST_ADDRESS: `127.0.0.1:${port}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: cargo and the runner end together
  });
  server = { child, dir: null };
  return await new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk) => {
      process.stdout.write(chunk);
      seen += chunk;
      const dir = /Retaining temporary build output folder: (\S+)/.exec(seen);
      const url = /tests are now available at (http:\/\/\S+)/.exec(seen);
      if (dir && server) server.dir = dir[1];
      if (url && dir) resolve([child, url[1], dir[1]]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the test runner exited (${code}) before serving the page`)));
    // building the binary is done before this script runs (test.sh); generous anyway
    setTimeout(() => reject(new Error(`the test runner did not serve the page within ${SERVE_WAIT_MS / 1000} s`)), SERVE_WAIT_MS).unref();
  });
}

function stop(child) {
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {}
}

const resultShown = (text) => /test result: (ok|FAILED)/.test(text);

/** Open `url` in Chromium; the page's output, or null when no result came. */
async function runInChromium(url) {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") console.log(`[console.error] ${m.text()}`);
    });
    page.on("pageerror", (e) => console.log(`[pageerror] ${e.message}`));
    await page.goto(url, { waitUntil: "commit", timeout: 120_000 });
    const done = () => /test result: (ok|FAILED)/.test(document.getElementById("output")?.textContent ?? "");
    try {
      await page.waitForFunction(done, null, { timeout: RESULT_WAIT_MS, polling: 250 });
    } catch (e) {
      const text = await page.locator("#output").textContent().catch(() => "(unreadable)");
      console.log(`no result after ${RESULT_WAIT_MS / 1000} s; the page shows:\n${text}`);
      return null;
    }
    return await page.locator("#output").textContent();
  } finally {
    await browser.close();
  }
}

/** Open `url` in headless Firefox through geckodriver (WebDriver); the output, or null. */
async function runInFirefox(url) {
  const port = await freePort();
  const driver = spawn(process.env.GECKODRIVER || "geckodriver", ["--host", "127.0.0.1", "--port", String(port)], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  let driverError = null;
  driver.on("error", (e) => (driverError = e));
  geckodriver = driver;
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const response = await fetch(base + path, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const reply = await response.json();
    if (!response.ok) throw new Error(`geckodriver ${method} ${path}: ${JSON.stringify(reply.value)}`);
    return reply.value;
  };
  let session;
  try {
    for (const deadline = Date.now() + 30_000; ; await sleep(100)) {
      if (driverError) throw new Error(`geckodriver did not start: ${driverError.message}`);
      const ok = await fetch(`${base}/status`).then((r) => r.ok, () => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error("geckodriver did not answer within 30 s");
    }
    const capabilities = { alwaysMatch: { browserName: "firefox", "moz:firefoxOptions": { args: ["-headless"] } } };
    session = (await call("POST", "/session", { capabilities })).sessionId;
    await call("POST", `/session/${session}/url`, { url });
    const script = "const o = document.getElementById('output'); return o ? o.textContent : '';";
    let text = "";
    for (const deadline = Date.now() + RESULT_WAIT_MS; Date.now() < deadline; await sleep(250)) {
      text = await call("POST", `/session/${session}/execute/sync`, { script, args: [] });
      if (resultShown(text)) return text;
    }
    console.log(`no result after ${RESULT_WAIT_MS / 1000} s; the page shows:\n${text}`);
    return null;
  } finally {
    if (session) await call("DELETE", `/session/${session}`).catch(() => {});
    driver.kill();
  }
}

// test.sh ends a lane by signalling its process group; the runner is in a group of its
// own (detached), so it is stopped here, with its kept files, however this script ends
let server = null;
let geckodriver = null; // it ends its Firefox when it ends
function cleanUp() {
  geckodriver?.kill();
  if (!server) return;
  stop(server.child);
  if (server.dir) rmSync(server.dir, { recursive: true, force: true });
  server = null;
}
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(signal, () => {
    cleanUp();
    process.exit(1);
  });
}
let code = 1;
try {
  const [, url, dir] = await startServer();
  const file = join(dir, "wasm-bindgen-test.js");
  writeFileSync(file, glue.patchGlue(readFileSync(file, "utf8"), file, glue.TEST_RUNNER_CLASSES));
  console.log(`boundary: the glue is patched as the package's (${file})`);
  const run = browserName === "chrome" ? runInChromium : runInFirefox;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    console.log(`opening ${url} in ${browserName} (attempt ${attempt})`);
    let output;
    try {
      output = await run(url);
    } catch (e) {
      console.log(`${browserName} failed to open the page: ${e.message}`);
      output = null;
    }
    if (output === null) continue;
    console.log(output);
    code = /test result: ok\. [1-9][0-9]* passed/.test(output) ? 0 : 1;
    break;
  }
} catch (e) {
  console.log(`boundary in ${browserName}: ${e.message}`);
} finally {
  cleanUp();
}
process.exit(code);
