// cli.test.mjs - `mortar report` and `mortar serve` from the outside, on the
// synthetic database of make_db.c: the file written and the data in it, the
// HTTP answers, and every error's message and exit code.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';

import { MAKE_DB, MORTAR, freshDatabase, pageData, run } from './common.mjs';

let fx;
before(() => {
  fx = freshDatabase('cli');
});

const allRuns = (m) => 1 + m.grid.length + m.baselines.length + m.load.length; // + the failed one

test('report writes report/index.html by default and prints its path', () => {
  const r = run(MORTAR, ['report', '--db', 'mortar.db'], { cwd: fx.dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'report/index.html');
  const html = readFileSync(join(fx.dir, 'report', 'index.html'), 'utf8');
  const data = pageData(html);
  assert.equal(data.runs.length, allRuns(fx.manifest));
  assert.equal(data.database, join(fx.dir, 'mortar.db'));
  // One file: nothing loaded from elsewhere.
  assert.doesNotMatch(html, /<script[^>]*\ssrc=/);
  assert.doesNotMatch(html, /<link[^>]*stylesheet/);
});

test("a run's text cannot end the data's <script> early", () => {
  const html = readFileSync(join(fx.dir, 'report', 'index.html'), 'utf8');
  const failed = pageData(html).runs.find((r) => r.status === 'failed');
  assert.equal(failed.error, 'synthetic failure: </script><!-- <b>the server crashed</b>');
  assert.ok(!html.includes('</script><!-- <b>'), 'the error text is in the page unescaped');
});

test("every grid run's traced median request is in the page", () => {
  const data = pageData(readFileSync(join(fx.dir, 'report', 'index.html'), 'utf8'));
  for (const g of fx.manifest.grid) {
    const t = data.traces[String(g.run_id)];
    if (!g.traced) {
      assert.match(t.error, /no trace files/);
      continue;
    }
    assert.ok(t && Array.isArray(t.tracks), `run ${g.run_id}: ${t && t.error}`);
    assert.equal(t.request, 5);
    assert.equal(t.latency_ps, Math.round(g.median_us * 1e6));
    assert.ok(t.tracks.some((k) => k.name === 'accel'));
  }
});

test('report --out creates the directories it needs', () => {
  const r = run(MORTAR, ['report', '--db', fx.db, '--out', join(fx.dir, 'a', 'b')]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), join(fx.dir, 'a', 'b', 'index.html'));
  assert.ok(existsSync(join(fx.dir, 'a', 'b', 'index.html')));
});

test('report refuses a missing database and does not create it', () => {
  const missing = join(fx.dir, 'nope.db');
  const r = run(MORTAR, ['report', '--db', missing, '--out', join(fx.dir, 'nope')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no results database at .*nope\.db/);
  assert.ok(!existsSync(missing));
  assert.ok(!existsSync(join(fx.dir, 'nope')));
});

test('report refuses a file that is not a results database', () => {
  const r = run(MORTAR, ['report', '--db', join(fx.dir, 'manifest.json'), '--out', join(fx.dir, 'nope')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /manifest\.json: file is not a database/);
});

test('report rejects a bad option with its usage and exit code 2', () => {
  for (const args of [['--bogus'], ['--db'], ['extra']]) {
    const r = run(MORTAR, ['report', ...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /usage: mortar report \[--db FILE\] \[--out DIR\]/);
  }
});

test('report says where it looked when the page template is missing', () => {
  const r = run(MORTAR, ['report', '--db', fx.db, '--out', join(fx.dir, 'x')],
    { env: { ...process.env, MORTAR_WEB_DIR: join(fx.dir, 'no-such-dir') } });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no explorer template at .*no-such-dir\/explorer\.html/);
});

// ---- mortar serve

// Starts `mortar serve ARGS`; resolves with {proc, port, out} once it prints
// its address.
function startServe(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(MORTAR, ['serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = { stdout: '', stderr: '' };
    proc.stdout.on('data', (d) => {
      out.stdout += d;
      const m = out.stdout.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ proc, port: +m[1], out });
    });
    proc.stderr.on('data', (d) => { out.stderr += d; });
    proc.on('exit', (code) => reject(new Error(`mortar serve exited (${code}): ${out.stderr}`)));
  });
}

function exited(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) resolve(proc.exitCode);
    else proc.on('exit', (code, signal) => resolve(code ?? signal));
  });
}

// Who listens on `port`: the local addresses in /proc/net/tcp (hex, as the
// kernel writes them).
function listeners(port) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length > 3 && f[3] === '0A' && f[1].endsWith(':' + hexPort))
    .map((f) => f[1]);
}

test('serve answers / with the page built from the database at each request', async () => {
  const { proc, port, out } = await startServe(['--db', fx.db, '--port', '0']);
  try {
    assert.ok(port > 0);
    assert.deepEqual(listeners(port), [`0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`],
      'listens on 127.0.0.1 only');
    const base = `http://127.0.0.1:${port}`;
    let res = await fetch(base + '/');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/html/);
    const first = pageData(await res.text());
    assert.equal(first.runs.length, allRuns(fx.manifest));

    // More runs land in the database (a sweep going on): the next load has them.
    const r = run(MAKE_DB, [fx.db, join(fx.dir, 'runs'), join(fx.dir, 'manifest2.json')]);
    assert.equal(r.code, 0, r.stderr);
    res = await fetch(base + '/');
    assert.equal(res.status, 200);
    assert.equal(pageData(await res.text()).runs.length, 2 * allRuns(fx.manifest));

    res = await fetch(base + '/nothing-here');
    assert.equal(res.status, 404);
    res = await fetch(base + '/', { method: 'POST', body: 'x' });
    assert.equal(res.status, 405);

    // A second server on the same port says so.
    const second = run(MORTAR, ['serve', '--db', fx.db, '--port', String(port)]);
    assert.equal(second.code, 1);
    assert.match(second.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use`));
  } finally {
    proc.kill('SIGINT');
  }
  assert.equal(await exited(proc), 0, out.stderr);
  assert.match(out.stderr, /stopped \(Ctrl-C\)/);
});

test('serve refuses a missing database, a bad port and a bad option', () => {
  let r = run(MORTAR, ['serve', '--db', join(fx.dir, 'nope.db'), '--port', '0']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no results database at/);
  assert.ok(!existsSync(join(fx.dir, 'nope.db')));
  for (const port of ['70000', '-1', 'http', '']) {
    r = run(MORTAR, ['serve', '--db', fx.db, '--port', port]);
    assert.equal(r.code, 2, `--port '${port}'`);
    assert.match(r.stderr, /usage: mortar serve/);
  }
  r = run(MORTAR, ['serve', '--verbose']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unexpected '--verbose'/);
});
