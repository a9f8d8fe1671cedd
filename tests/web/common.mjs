// common.mjs - what the explorer's tests share: the paths CTest passes in
// (tests/web/CMakeLists.txt), running the mortar binary and the database
// generator, and reading the data a page carries.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export function need(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`${name} is not set: run this test through CTest (ctest -L web)`);
    process.exit(1);
  }
  return v;
}

export const MORTAR = need('MORTAR');
export const MAKE_DB = need('WEB_MAKE_DB');
export const WORK = need('WEB_WORK');

// Runs a command to its end; {code, stdout, stderr}.
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 240000, ...opts });
  if (r.error) throw r.error;
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

// A fresh WORK/<name> directory with the synthetic database in it:
// {dir, db, manifest} (make_db.c says what it holds).
export function freshDatabase(name) {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const db = join(dir, 'mortar.db');
  const manifestPath = join(dir, 'manifest.json');
  const r = run(MAKE_DB, [db, join(dir, 'runs'), manifestPath]);
  if (r.code !== 0) throw new Error(`web_make_db failed (${r.code}): ${r.stderr}`);
  return { dir, db, manifest: JSON.parse(readFileSync(manifestPath, 'utf8')) };
}

// The JSON inside the page's <script id="mortar-data">.
export function pageData(html) {
  const m = html.match(/<script type="application\/json" id="mortar-data">([\s\S]*?)<\/script>/);
  if (!m) throw new Error('the page has no mortar-data script');
  return JSON.parse(m[1]);
}

export const gridRun = (manifest, design, L, speed) =>
  manifest.grid.find((g) => g.design === design && g.pcie_latency_us === L && g.speed === speed);
