// common.mjs - what the explorer's tests share: the paths CTest passes in
// (tests/web/CMakeLists.txt), running the mortar binary, `mortar serve` and
// the database generator, and reading the data a page and its trace scripts
// carry.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';

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

// Runs a trace script (traces/<id>.js, from `mortar report` or `mortar
// serve`) as the page would, and returns what it hands to mortarTrace:
// {id, timeline}. Throws when it does not call it exactly once.
export function traceScript(text) {
  const calls = [];
  // Through JSON, so that the objects belong to this realm (deepEqual).
  vm.runInNewContext(text, { mortarTrace: (id, timeline) =>
    calls.push({ id, timeline: JSON.parse(JSON.stringify(timeline)) }) });
  if (calls.length !== 1) throw new Error(`the trace script called mortarTrace ${calls.length} times`);
  return calls[0];
}

// Starts `mortar serve ARGS`; resolves with {proc, port, base, out} once it
// prints its address. With `fdLimit`, its descriptor limit (soft and hard)
// is that, and so the connections it can hold fewer.
export function startServe(args, { fdLimit } = {}) {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = fdLimit
      ? ['sh', ['-c', 'ulimit -n "$0" && exec "$@"', String(fdLimit), MORTAR, 'serve', ...args]]
      : [MORTAR, ['serve', ...args]];
    const proc = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = { stdout: '', stderr: '' };
    proc.stdout.on('data', (d) => {
      out.stdout += d;
      const m = out.stdout.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ proc, port: +m[1], base: `http://127.0.0.1:${m[1]}`, out });
    });
    proc.stderr.on('data', (d) => { out.stderr += d; });
    proc.on('exit', (code) => reject(new Error(`mortar serve exited (${code}): ${out.stderr}`)));
  });
}

// Resolves with a process's exit code (or the signal that ended it).
export function exited(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) resolve(proc.exitCode);
    else proc.on('exit', (code, signal) => resolve(code ?? signal));
  });
}

export const gridRun = (manifest, design, L, speed) =>
  manifest.grid.find((g) => g.design === design && g.pcie_latency_us === L && g.speed === speed);
