// The boundary tests (tests/wasm, the library built for wasm32 with its wasm-bindgen glue)
// in headless Chromium, driven by playwright-core as every other browser test here.
//
// wasm-bindgen-test-runner drives Chromium through chromedriver, and there the test page
// sometimes never finished loading ("Loading scripts...", then chromedriver's "Timed out
// receiving message from renderer" after 300 s): on a loaded machine three attempts in a
// row (a fresh-clone run lost 15 minutes and failed on it), on an idle one now and then.
// The same Chromium launched by playwright-core (tests/js/browser.mjs) loads the package's
// pages in the same runs. So the runner only serves the page (`NO_HEADLESS`: its
// interactive mode), and this script opens it, waits for the harness's result line and
// exits 0 only when at least one test ran and all passed. A page that never shows a
// result is retried (in a new browser) up to three times; a test failure never is.
//
//   node scripts/boundary-chromium.mjs    (from the repository root; test.sh sets the runner)
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "../tests/js/browser.mjs";

const ATTEMPTS = 3;
const RESULT_WAIT_MS = 240_000; // the suite takes ~8 s alone; generous for a loaded machine

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

/** Start the runner's server; resolves with [child, url] once it listens. */
async function startServer() {
  const port = await freePort();
  const child = spawn("cargo", ["test", "--target", "wasm32-unknown-unknown", "--features", "boundary-tests", "--test", "wasm"], {
    env: {
      ...process.env,
      NO_HEADLESS: "1",
      WASM_BINDGEN_USE_BROWSER: "1",
      WASM_BINDGEN_TEST_ONLY_WEB: "1",
      WASM_BINDGEN_TEST_ADDRESS: `127.0.0.1:${port}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: cargo and the runner end together
  });
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk) => {
      process.stdout.write(chunk);
      seen += chunk;
      const m = /tests are now available at (http:\/\/\S+)/.exec(seen);
      if (m) resolve(m[1]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the test runner exited (${code}) before serving the page`)));
  });
  return [child, url];
}

function stop(child) {
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {}
}

/** Open `url`, wait for the harness's result line; the page's output, or null when none came. */
async function runPage(url) {
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

const [child, url] = await startServer();
let code = 1;
try {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    console.log(`opening ${url} in Chromium (attempt ${attempt})`);
    let output;
    try {
      output = await runPage(url);
    } catch (e) {
      console.log(`Chromium failed to open the page: ${e.message}`);
      output = null;
    }
    if (output === null) continue;
    console.log(output);
    code = /test result: ok\. [1-9][0-9]* passed/.test(output) ? 0 : 1;
    break;
  }
} finally {
  stop(child);
}
process.exit(code);
