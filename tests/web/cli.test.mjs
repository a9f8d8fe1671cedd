// cli.test.mjs - `mortar report` and `mortar serve` from the outside, on the
// synthetic database of make_db.c: the files written and the data in them
// (the page, and a script per traced request), the HTTP answers, and every
// error's message and exit code.
import assert from 'node:assert/strict';
import {
  existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { before, test } from 'node:test';

import { MAKE_DB, MORTAR, exited, freshDatabase, pageData, run, startServe, traceScript } from './common.mjs';

let fx;
before(() => {
  fx = freshDatabase('cli');
});

const allRuns = (m) => 1 + m.grid.length + m.baselines.length + m.load.length + m.extra.length; // + the failed one

const traced = (m) => m.grid.filter((g) => g.traced);

test('report writes report/index.html by default and prints its path', () => {
  const r = run(MORTAR, ['report', '--db', 'mortar.db'], { cwd: fx.dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'report/index.html');
  const n = traced(fx.manifest).length;
  assert.match(r.stderr, new RegExp(`^mortar report: wrote report/index\\.html \\(\\d+ kB\\) and ${n} ` +
    'traced requests in report/traces/ \\([\\d.]+ (kB|MB), each loaded when the page shows it\\)\n$'));
  const html = readFileSync(join(fx.dir, 'report', 'index.html'), 'utf8');
  const data = pageData(html);
  assert.equal(data.runs.length, allRuns(fx.manifest));
  assert.equal(data.database, join(fx.dir, 'mortar.db'));
  // The page loads nothing from elsewhere but the traces beside it, which it
  // adds itself when it shows one.
  assert.doesNotMatch(html, /<script[^>]*\ssrc=/);
  assert.doesNotMatch(html, /<link[^>]*stylesheet/);
});

test("the page's data describes the study and places every run in it", () => {
  const data = pageData(readFileSync(join(fx.dir, 'report', 'index.html'), 'utf8'));
  const st = data.study;
  assert.equal(st.axis, 'design');
  assert.deepEqual(st.compare, ['a', 'b']);
  assert.deepEqual(st.baselines, ['software', 'regcopy', 'a-x8', 'b-x8']);
  assert.deepEqual(st.variants.filter((v) => st.compare.includes(v.name)).map((v) => v.label), ['A', 'B']);
  assert.equal(st.x, 'pcie.latency');
  assert.equal(st.series, 'speed');
  assert.equal(st.series_at, 1);
  assert.equal(st.load.name, 'inflight');
  assert.equal(st.load_at, 1);
  const x = st.knobs.find((k) => k.name === st.x);
  assert.equal(x.unit, 'us');
  assert.deepEqual(x.values, [0.5, 1, 1.5, 2, 2.5]); // "0.5us" ... read in the knob's unit
  assert.deepEqual(st.metric.parts.map((p) => [p.name, p.field]),
    [['service', 'service_ns'], ['compute', 'device_compute_ns']]);
  // Each run's variant and knob values, from its variables, as make_db wrote them.
  const written = [...fx.manifest.grid, ...fx.manifest.baselines, ...fx.manifest.load, ...fx.manifest.extra];
  assert.ok(written.length > 0);
  for (const w of written) {
    const r = data.runs.find((run) => run.id === w.run_id);
    const where = `run ${w.run_id}`;
    assert.equal(r.variant, w.design, where);
    assert.equal(r.x, w.pcie_latency_us, where);
    assert.equal(r.series, w.speed, where);
    assert.equal(r.load, w.in_flight, where);
  }
});

test("a run's text cannot end the data's <script> early", () => {
  const html = readFileSync(join(fx.dir, 'report', 'index.html'), 'utf8');
  const failed = pageData(html).runs.find((r) => r.status === 'failed');
  assert.equal(failed.error, 'synthetic failure: </script><!-- <b>the server crashed</b>');
  assert.ok(!html.includes('</script><!-- <b>'), 'the error text is in the page unescaped');
});

const traceFile = (dir, id) => join(dir, 'traces', `${id}.js`);

test("the page summarizes every grid run's traced median request; traces/<id>.js holds it", () => {
  const report = join(fx.dir, 'report');
  const data = pageData(readFileSync(join(report, 'index.html'), 'utf8'));
  for (const g of fx.manifest.grid) {
    const t = data.traces[String(g.run_id)];
    if (!g.traced) {
      assert.deepEqual(Object.keys(t), ['error']);
      assert.match(t.error, /no trace files/);
      assert.ok(!existsSync(traceFile(report, g.run_id)), `run ${g.run_id} has no trace but a file`);
      continue;
    }
    // The page: a summary only.
    const where = `run ${g.run_id}`;
    assert.deepEqual(Object.keys(t).sort(),
      ['end_ps', 'events', 'exports', 'file', 'latency_ps', 'request', 'split', 'start_ps'], `${where}: ${t.error}`);
    // Where its time goes: the six parts, summing to its latency.
    assert.equal(t.split.latency_ps, t.latency_ps, where);
    assert.deepEqual(t.split.parts.map((p) => p.part),
      ['client_software', 'network', 'server_software', 'host_interface', 'pcie_wire', 'compute'],
      where);
    assert.equal(t.split.parts.reduce((n, p) => n + p.ps, 0), t.latency_ps, `${where}: the parts' sum`);
    assert.equal(t.file, `traces/${g.run_id}.js`);
    assert.equal(t.request, 5);
    assert.equal(t.latency_ps, Math.round(g.median_us * 1e6));
    // Beside it: the whole timeline, handed to mortarTrace.
    const text = readFileSync(join(report, t.file), 'utf8');
    assert.match(text, new RegExp(`^mortarTrace\\(${g.run_id}, \\{`));
    assert.ok(!text.includes('<'), `${where}: '<' is escaped as in the page`);
    const { id, timeline } = traceScript(text);
    assert.equal(id, g.run_id);
    for (const k of ['request', 'start_ps', 'end_ps', 'latency_ps']) assert.equal(timeline[k], t[k], `${where}: ${k}`);
    assert.deepEqual(timeline.split, t.split, `${where}: split`);
    assert.ok(timeline.tracks.some((k) => k.name === 'accel'), where);
    assert.ok(timeline.tracks.find((k) => k.name === 'accel').events.length > 10, where);
    assert.equal(timeline.tracks.reduce((n, k) => n + k.events.length, 0), t.events, `${where}: events`);
    assert.ok(Array.isArray(timeline.flows) && timeline.flows.length > 0, `${where}: flows`);
    // And the request as Perfetto and OTLP JSON, gzipped: what mortar trace writes.
    for (const format of ['perfetto', 'otlp']) {
      assert.equal(t.exports[format], `traces/${g.run_id}.${format}.json.gz`);
      const cmd = run(MORTAR, ['trace', String(g.run_id), '--db', fx.db, '--format', format]);
      assert.equal(cmd.code, 0, cmd.stderr);
      assert.equal(gunzipSync(readFileSync(join(report, t.exports[format]))).toString('utf8'), cmd.stdout,
        `${where}: ${format}`);
    }
  }
  // Nothing else is in traces/.
  assert.deepEqual(readdirSync(join(report, 'traces')).sort(),
    traced(fx.manifest).flatMap((g) => ['js', 'perfetto.json.gz', 'otlp.json.gz'].map((e) => `${g.run_id}.${e}`)).sort());
});

test('the page stays small: the timelines are only in traces/', () => {
  const report = join(fx.dir, 'report');
  const page = statSync(join(report, 'index.html')).size;
  const traces = readdirSync(join(report, 'traces'))
    .reduce((n, f) => n + statSync(join(report, 'traces', f)).size, 0);
  const html = readFileSync(join(report, 'index.html'), 'utf8');
  assert.doesNotMatch(html, /"tracks"/);
  assert.ok(page < 600 * 1000, `the page is ${page} bytes`);
  // The page is the template, the runs and the verdict: far less data than
  // the traced requests it summarizes.
  assert.ok(JSON.stringify(pageData(html).traces).length * 20 < traces,
    `summaries ${JSON.stringify(pageData(html).traces).length} bytes, traces ${traces}`);
});

test("a new report removes an earlier report's trace scripts that it no longer names", () => {
  const report = join(fx.dir, 'report');
  const dir = join(report, 'traces');
  for (const f of ['999999.js', '999999.otlp.json.gz', '0123.js', 'notes.txt', '12.js.map', '12.otlp.json'])
    writeFileSync(join(dir, f), 'x');
  const r = run(MORTAR, ['report', '--db', fx.db, '--out', report]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /; removed 2 old trace files\n$/);
  const left = readdirSync(dir);
  assert.ok(!left.includes('999999.js') && !left.includes('999999.otlp.json.gz'));
  for (const f of ['0123.js', 'notes.txt', '12.js.map', '12.otlp.json']) assert.ok(left.includes(f), `${f} is not the report's`);
  for (const g of traced(fx.manifest)) assert.ok(left.includes(`${g.run_id}.js`));
});

test('a report of runs without traces writes no traces/ and removes an old one', () => {
  // A report of the synthetic database, then one of an empty database over it.
  const empty = join(fx.dir, 'untraced.db');
  assert.equal(run(MAKE_DB, ['--empty', empty]).code, 0);
  const out = join(fx.dir, 'untraced');
  let r = run(MORTAR, ['report', '--db', fx.db, '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(join(out, 'traces')));
  r = run(MORTAR, ['report', '--db', empty, '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`none of the runs it shows has a trace .*; removed ${3 * traced(fx.manifest).length} old trace files`));
  assert.ok(!existsSync(join(out, 'traces')), 'the emptied traces/ is removed');
});

// Nothing in the output folder is written through a symbolic link: a link
// at index.html (or at the temporary file beside it) is replaced, never
// followed; a traces/ that is a link to another folder is refused, and
// nothing in that folder is written or removed.
test('report writes through no symbolic link in its folder', () => {
  const out = join(fx.dir, 'linked');
  const elsewhere = join(fx.dir, 'elsewhere');
  mkdirSync(out, { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  const victim = join(elsewhere, 'victim.txt');
  writeFileSync(victim, 'keep me\n');
  symlinkSync(victim, join(out, 'index.html'));
  symlinkSync(victim, join(out, 'index.html.tmp'));
  let r = run(MORTAR, ['report', '--db', fx.db, '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(victim, 'utf8'), 'keep me\n');
  assert.ok(lstatSync(join(out, 'index.html')).isFile(), 'index.html is the page, not the link');

  const traces = join(out, 'traces');
  const other = join(fx.dir, 'other-traces');
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, '999999.js'), 'theirs');
  r = run('rm', ['-rf', traces]);
  symlinkSync(other, traces);
  r = run(MORTAR, ['report', '--db', fx.db, '--out', out]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /traces is a symbolic link: not writing through it/);
  assert.deepEqual(readdirSync(other), ['999999.js']);
  assert.equal(readFileSync(join(other, '999999.js'), 'utf8'), 'theirs');
  // a report with no trace to write leaves the linked folder alone as well
  const empty = join(fx.dir, 'untraced-linked.db');
  assert.equal(run(MAKE_DB, ['--empty', empty]).code, 0);
  r = run(MORTAR, ['report', '--db', empty, '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readdirSync(other), ['999999.js']);
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
    assert.match(r.stderr, /Usage: mortar report \[OPTION\]\.\.\./);
  }
});

test('report says where it looked when the page template is missing', () => {
  const r = run(MORTAR, ['report', '--db', fx.db, '--out', join(fx.dir, 'x')],
    { env: { ...process.env, MORTAR_WEB_DIR: join(fx.dir, 'no-such-dir') } });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no explorer template at .*no-such-dir\/explorer\.html/);
});

// ---- mortar serve

// Who listens on `port`: the local addresses in /proc/net/tcp (hex, as the
// kernel writes them).
function listeners(port) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length > 3 && f[3] === '0A' && f[1].endsWith(':' + hexPort))
    .map((f) => f[1]);
}

// Opens `n` connections to 127.0.0.1:port that send nothing (one in ten
// sends half a request), in batches the server has time to accept (the
// kernel's accept queue is short); resolves with the sockets.
async function idleConnections(port, n) {
  const socks = [];
  const open = () => new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      if (socks.length % 10 === 0) s.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // never finished
      resolve(s);
    });
    s.on('error', reject);
  });
  while (socks.length < n) {
    const batch = await Promise.all(Array.from({ length: Math.min(25, n - socks.length) }, open));
    for (const s of batch) s.on('error', () => {});
    socks.push(...batch);
    await new Promise((r) => setTimeout(r, 100));
  }
  return socks;
}

test('serve answers / with the page built from the database at each request, idle clients or not', async () => {
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
    // The server keeps finished runs' trace summaries: a reload shows the same.
    res = await fetch(base + '/');
    assert.deepEqual(pageData(await res.text()).traces, first.traces);

    // More runs land in the database (a sweep going on): the next load has them,
    // and the summaries of the traces it shows now are those a fresh report makes.
    const r = run(MAKE_DB, [fx.db, join(fx.dir, 'runs'), join(fx.dir, 'manifest2.json')]);
    assert.equal(r.code, 0, r.stderr);
    res = await fetch(base + '/');
    assert.equal(res.status, 200);
    const later = pageData(await res.text());
    assert.equal(later.runs.length, 2 * allRuns(fx.manifest));
    const fresh = join(fx.dir, 'report-after-more-runs');
    assert.equal(run(MORTAR, ['report', '--db', fx.db, '--out', fresh]).code, 0);
    assert.deepEqual(later.traces, pageData(readFileSync(join(fresh, 'index.html'), 'utf8')).traces);
    assert.notDeepEqual(later.traces, first.traces, 'the newer runs are the ones shown');

    // The page holds the summaries; the traces are answered one by one.
    for (const t of Object.values(first.traces)) {
      assert.ok(!('tracks' in t), JSON.stringify(t).slice(0, 200));
      assert.ok(typeof t.file === 'string' || typeof t.error === 'string');
    }

    res = await fetch(base + '/nothing-here');
    assert.equal(res.status, 404);
    res = await fetch(base + '/', { method: 'POST', body: 'x' });
    assert.equal(res.status, 405);

    res = await fetch(base + '/traces/1.js', { method: 'POST', body: 'x' });
    assert.equal(res.status, 405);

    // Idle clients cannot lock the others out: with 1,200 connections held
    // that send nothing or half a request, / still loads within 5 s.
    const socks = await idleConnections(port, 1200);
    try {
      const t0 = Date.now();
      res = await fetch(base + '/', { signal: AbortSignal.timeout(5000) });
      assert.equal(res.status, 200);
      assert.equal(pageData(await res.text()).runs.length, 2 * allRuns(fx.manifest));
      assert.ok(Date.now() - t0 < 5000);
    } finally {
      for (const s of socks) s.destroy();
    }

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

// GET `path` exactly as written (fetch would resolve "..").
function rawGet(port, path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// GET `path` with `headers`; the body as the bytes that came.
function getBytes(port, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serve gives /api/runs and /api/verdict as results --json and verdict --json print them (the verdict with the page\'s answer), gzipped and revalidated', async () => {
  const fresh = freshDatabase('api');
  const { proc, port, out } = await startServe(['--db', fresh.db, '--port', '0']);
  try {
    const expected = {
      '/api/runs': run(MORTAR, ['results', '--db', fresh.db, '--json']),
      '/api/runs?requests=1': run(MORTAR, ['results', '--db', fresh.db, '--json', '--requests']),
      '/api/verdict': run(MORTAR, ['verdict', '--db', fresh.db, '--json']),
    };
    for (const [path, cmd] of Object.entries(expected)) {
      assert.equal(cmd.code, 0, cmd.stderr);
      const plain = await getBytes(port, path);
      assert.equal(plain.status, 200, path);
      assert.equal(plain.headers['content-type'], 'application/json');
      assert.equal(plain.headers['content-encoding'], undefined);
      if (path === '/api/verdict') {
        // The verdict as the command prints it, with the answer as the
        // page's data has it, sentence and all, as its last member.
        const { answer, ...verdict } = JSON.parse(plain.body.toString('utf8'));
        assert.deepEqual(Object.keys(JSON.parse(plain.body.toString('utf8'))).at(-1), 'answer');
        assert.deepEqual(verdict, JSON.parse(cmd.stdout), `${path} is what the command prints`);
        const page = pageData((await getBytes(port, '/')).body.toString('utf8'));
        assert.deepEqual(answer, page.answer);
        assert.match(answer.text, /^At compute speed 1×, Design A is [\d.]+× faster alone, /);
        cmd.stdout = plain.body.toString('utf8');
      } else {
        assert.equal(plain.body.toString('utf8'), cmd.stdout, `${path} is what the command prints`);
      }
      assert.equal(plain.headers['cache-control'], 'no-cache', 'kept, but asked again before use');
      assert.match(plain.headers.etag, /^"[0-9a-f]{16}"$/);

      const zipped = await getBytes(port, path, { 'Accept-Encoding': 'br, gzip' });
      assert.equal(zipped.headers['content-encoding'], 'gzip', path);
      assert.equal(zipped.headers.vary, 'Accept-Encoding');
      assert.ok(zipped.body.length < plain.body.length / 2, `${path}: ${zipped.body.length} bytes`);
      assert.equal(gunzipSync(zipped.body).toString('utf8'), cmd.stdout);
      assert.equal(zipped.headers.etag, plain.headers.etag, 'the tag is of the data, not its coding');

      const again = await getBytes(port, path, { 'If-None-Match': plain.headers.etag });
      assert.equal(again.status, 304, path);
      assert.equal(again.body.length, 0);
    }
    assert.notEqual((await getBytes(port, '/api/runs')).headers.etag,
      (await getBytes(port, '/api/runs?requests=1')).headers.etag);

    // The database changes: the tag does, and the old copy is sent again.
    const before = await getBytes(port, '/api/runs');
    const r = run(MAKE_DB, [fresh.db, join(fresh.dir, 'runs'), join(fresh.dir, 'manifest2.json')]);
    assert.equal(r.code, 0, r.stderr);
    const after = await getBytes(port, '/api/runs', { 'If-None-Match': before.headers.etag });
    assert.equal(after.status, 200);
    assert.equal(after.body.toString('utf8'), run(MORTAR, ['results', '--db', fresh.db, '--json']).stdout);

    // The page and the traces are compressed and tagged the same way.
    const page = await getBytes(port, '/', { 'Accept-Encoding': 'gzip' });
    assert.equal(page.headers['content-encoding'], 'gzip');
    assert.equal(pageData(gunzipSync(page.body).toString('utf8')).runs.length,
      JSON.parse(after.body).runs.length);

    const missing = await getBytes(port, '/api/nothing');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-type'], 'application/json');
    assert.match(JSON.parse(missing.body).error, /\/api\/runs and \/api\/verdict/);
    assert.equal(missing.headers['cache-control'], 'no-store');
  } finally {
    proc.kill('SIGINT');
  }
  assert.equal(await exited(proc), 0, out.stderr);
});

test('serve answers /traces/<id>.js with the trace report writes, and 404 for anything else', async () => {
  const fresh = freshDatabase('cli-serve-traces');
  const report = join(fresh.dir, 'report');
  const r = run(MORTAR, ['report', '--db', fresh.db, '--out', report]);
  assert.equal(r.code, 0, r.stderr);
  const { proc, port, out } = await startServe(['--db', fresh.db, '--port', '0']);
  try {
    for (const g of traced(fresh.manifest)) {
      const res = await rawGet(port, `/traces/${g.run_id}.js`);
      assert.equal(res.status, 200, res.body);
      assert.match(res.type, /^text\/javascript/);
      assert.equal(res.body, readFileSync(traceFile(report, g.run_id), 'utf8'), `run ${g.run_id}`);
      assert.equal(traceScript(res.body).id, g.run_id);
      for (const format of ['perfetto', 'otlp']) { // the gzip files, sent as they are
        const file = `/traces/${g.run_id}.${format}.json.gz`;
        const got = await getBytes(port, file, { 'Accept-Encoding': 'gzip' });
        assert.equal(got.status, 200, file);
        assert.equal(got.headers['content-type'], 'application/gzip');
        assert.equal(got.headers['content-encoding'], undefined, `${file} is not encoded again`);
        assert.ok(got.body.equals(readFileSync(join(report, file))), `${file}: as the report wrote it`);
      }
    }
    const untraced = fresh.manifest.grid.find((g) => !g.traced);
    const baseline = fresh.manifest.baselines[0]; // a run the page shows no trace of
    const notFound = [
      ['/traces/../x', /a trace is \/traces\/<run id>\.js/],
      ['/traces/../../mortar.db', /a trace is \/traces\/<run id>\.js/],
      ['/traces/abc.js', /a trace is \/traces\/<run id>\.js/],
      ['/traces/1e3.js', /a trace is \/traces\/<run id>\.js/],
      ['/traces/-1.js', /a trace is \/traces\/<run id>\.js/],
      ['/traces/01.js', /a trace is \/traces\/<run id>\.js/],
      ['/traces/1.json', /a trace is \/traces\/<run id>\.js/],
      ['/traces/1.js/x', /a trace is \/traces\/<run id>\.js/],
      ['/traces/', /a trace is \/traces\/<run id>\.js/],
      ['/traces/99999999999999999999.js', /a trace is \/traces\/<run id>\.js/],
      ['/traces/999999.js', /run 999999 is not in the database/],
      ['/traces/999999.otlp.json.gz', /no run 999999 in/],
      ['/traces/1.otlp.json', /a trace is \/traces\/<run id>\.js/],
      [`/traces/${untraced.run_id}.js`, /no trace files/],
      [`/traces/${baseline.run_id}.js`, /no trace files/],
    ];
    for (const [path, why] of notFound) {
      const res = await rawGet(port, path);
      assert.equal(res.status, 404, path);
      assert.match(res.type, /^text\/plain/, path);
      assert.match(res.body, why, path);
      // no path of the server's machine: not the run's directory, not any
      assert.ok(!res.body.includes(fresh.dir), `${path}: ${res.body}`);
      assert.doesNotMatch(res.body, /(^|[\s('"=])\/(?!traces\/)/, `${path}: ${res.body}`);
    }
  } finally {
    proc.kill('SIGINT');
  }
  assert.equal(await exited(proc), 0, out.stderr);
  assert.match(out.stderr, /GET \/traces\/\d+\.js, trace built in \d+ ms/);
});

// Opens `n` connections to 127.0.0.1:port (in batches, as idleConnections)
// that send a request's headers one byte every `everyMs` and never finish
// them: each byte restarts libmicrohttpd's own idle timeout. Resolves with
// the sockets; a socket stops trickling when it closes.
async function tricklingConnections(port, n, everyMs) {
  const headers = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: ${'a'.repeat(2000)}`;
  const open = () => new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.on('error', reject);
  });
  const socks = [];
  while (socks.length < n) {
    const batch = await Promise.all(Array.from({ length: Math.min(25, n - socks.length) }, open));
    for (const s of batch) {
      s.on('error', () => {});
      let sent = 0;
      const timer = setInterval(() => s.write(headers[sent++]), everyMs);
      s.on('close', () => clearInterval(timer));
      s.write(headers[sent++]);
    }
    socks.push(...batch);
    await new Promise((r) => setTimeout(r, 100));
  }
  return socks;
}

test('serve answers at once while more connections than it can hold trickle their headers', async () => {
  // 256 descriptors: the server holds 192 connections, and 400 trickle.
  const { proc, base, port, out } = await startServe(['--db', fx.db, '--port', '0'], { fdLimit: 256 });
  let socks = [];
  try {
    let res = await fetch(base + '/'); // the first build of the page is the slow one
    assert.equal(res.status, 200);
    await res.text();
    socks = await tricklingConnections(port, 400, 500);
    const t0 = Date.now();
    res = await fetch(base + '/', { signal: AbortSignal.timeout(5000) });
    assert.equal(res.status, 200);
    assert.equal(pageData(await res.text()).runs.length, 2 * allRuns(fx.manifest));
    assert.ok(Date.now() - t0 < 5000);
    // The oldest gave their places to newer ones; the newest are still held.
    const held = socks.filter((s) => !s.destroyed).length;
    assert.ok(held > 0 && held < socks.length, `${held} of ${socks.length} held`);
  } finally {
    for (const s of socks) s.destroy();
    proc.kill('SIGINT');
  }
  assert.equal(await exited(proc), 0, out.stderr);
});

// Resolves with when `sock` closes, or null when it is still open at `deadline`.
function closedAt(sock, deadline) {
  return new Promise((resolve) => {
    if (sock.destroyed) return resolve(Date.now());
    const timer = setTimeout(() => resolve(null), deadline - Date.now());
    sock.on('close', () => { clearTimeout(timer); resolve(Date.now()); });
  });
}

test('serve closes a connection that has not sent a request within 5 s, however it trickles', async () => {
  const { proc, port, out } = await startServe(['--db', fx.db, '--port', '0']);
  try {
    const t0 = Date.now();
    const [trickling] = await tricklingConnections(port, 1, 200);
    const silent = connect({ host: '127.0.0.1', port });
    silent.on('error', () => {});
    const deadline = Date.now() + 9000;
    const closed = await Promise.all([trickling, silent].map((s) => closedAt(s, deadline)));
    for (const [i, name] of ['trickling', 'silent'].entries()) {
      assert.ok(closed[i] !== null, `the ${name} connection is still open after 9 s`);
      const waited = closed[i] - t0;
      assert.ok(waited > 4000 && waited < 7500, `the ${name} connection closed after ${waited} ms`);
    }
  } finally {
    proc.kill('SIGINT');
  }
  assert.equal(await exited(proc), 0, out.stderr);
});

// Sends `text` as it is on a new connection to 127.0.0.1:port; resolves
// with the answer's status and body once the server closes it.
function rawRequest(port, text) {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => s.write(text));
    let got = '';
    s.setEncoding('utf8');
    s.on('data', (d) => { got += d; });
    s.on('end', () => {
      const at = got.indexOf('\r\n\r\n');
      resolve({ status: +got.split(' ')[1], body: got.slice(at + 4) });
    });
    s.on('error', reject);
  });
}

// A GET of `path` naming `host` (null: no Host header).
const requestFor = (host, path = '/nothing-here', version = '1.1') =>
  `GET ${path} HTTP/${version}\r\n${host === null ? '' : `Host: ${host}\r\n`}Connection: close\r\n\r\n`;

test('serve answers 421 and no page to a request whose Host is not its own or allowed', async () => {
  const traceRun = traced(fx.manifest)[0].run_id;
  let { proc, port, out } = await startServe(['--db', fx.db, '--port', '0']);
  try {
    const other = port === 65535 ? port - 1 : port + 1;
    // 404: past the Host check, to a path that is not served.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`]) {
      assert.equal((await rawRequest(port, requestFor(host))).status, 404, host);
    }
    let res = await rawRequest(port, requestFor(`127.0.0.1:${port}`, `/traces/${traceRun}.js`));
    assert.equal(res.status, 200);
    assert.equal(traceScript(res.body).id, traceRun);
    for (const host of [null, '', 'evil.example.com', `evil.example.com:${port}`, `127.0.0.1:${other}`,
      '127.0.0.1', `localhost:${port}.evil.example.com`, `127.0.0.1:${port}@evil.example.com`,
      `evil.example.com#127.0.0.1:${port}`, `[::1]:${port}`]) {
      assert.equal((await rawRequest(port, requestFor(host))).status, 421, `Host ${host}`);
    }
    // HTTP/1.0 needs no Host, but a request without one names no site: 421 too.
    assert.equal((await rawRequest(port, requestFor(null, '/', '1.0'))).status, 421);
    for (const path of ['/', '/index.html', `/traces/${traceRun}.js`]) {
      res = await rawRequest(port, requestFor(`evil.example.com:${port}`, path));
      assert.equal(res.status, 421, path);
      assert.match(res.body, /^misdirected request: this server answers to Host 127\.0\.0\.1:\d+ or localhost:\d+/);
      assert.doesNotMatch(res.body, /mortar-data|mortarTrace/);
      assert.ok(!res.body.includes(fx.dir), res.body);
    }
  } finally {
    proc.kill('SIGINT');
  }
  assert.equal(await exited(proc), 0, out.stderr);
  assert.match(out.stderr, /refused a request for Host evil\.example\.com \(421\)/);
  assert.match(out.stderr, /refused a request without a Host \(421\)/);

  // --allow-host NAME: that name on any port; NAME:PORT: on that port only.
  ({ proc, port, out } = await startServe(['--db', fx.db, '--port', '0',
    '--allow-host', 'evil.example.com', '--allow-host=proxy.lan:9000']));
  try {
    const res = await rawRequest(port, requestFor(`evil.example.com:${port}`, `/traces/${traceRun}.js`));
    assert.equal(res.status, 200);
    assert.equal(traceScript(res.body).id, traceRun);
    for (const host of ['evil.example.com', 'EVIL.example.com:1234', 'proxy.lan:9000', `127.0.0.1:${port}`]) {
      assert.equal((await rawRequest(port, requestFor(host))).status, 404, host);
    }
    for (const host of ['proxy.lan:9001', 'proxy.lan', 'other.example.com', `example.com:${port}`]) {
      assert.equal((await rawRequest(port, requestFor(host))).status, 421, host);
    }
  } finally {
    proc.kill('SIGINT');
  }
  assert.equal(await exited(proc), 0, out.stderr);
});

test('the reading commands refuse a mistyped --db and create nothing', () => {
  const missing = join(fx.dir, 'mortar-typo.db');
  for (const args of [['results'], ['verdict'], ['trace', '1', '--format', 'timeline'], ['report', '--out', join(fx.dir, 'typo')]]) {
    const r = run(MORTAR, [...args, '--db', missing]);
    assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
    assert.match(r.stderr, /no (results )?database|no such file/, args[0]);
    assert.ok(!existsSync(missing), `${args[0]} created ${missing}`);
  }
});

test('serve refuses a missing database, a bad port, a bad --allow-host and a bad option', () => {
  let r = run(MORTAR, ['serve', '--db', join(fx.dir, 'nope.db'), '--port', '0']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no results database at/);
  assert.ok(!existsSync(join(fx.dir, 'nope.db')));
  for (const port of ['70000', '-1', 'http', '']) {
    r = run(MORTAR, ['serve', '--db', fx.db, '--port', port]);
    assert.equal(r.code, 2, `--port '${port}'`);
    assert.match(r.stderr, /Usage: mortar serve/);
  }
  for (const host of ['a b', 'x:0', 'x:65536', 'x:', ':80', 'user@x', '[::1', 'x:80:80', 'x/y']) {
    r = run(MORTAR, ['serve', '--db', fx.db, '--allow-host', host]);
    assert.equal(r.code, 2, `--allow-host '${host}'`);
    assert.match(r.stderr, /--allow-host wants NAME or NAME:PORT/);
    assert.match(r.stderr, /Usage: mortar serve/);
  }
  r = run(MORTAR, ['serve', '--verbose']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unrecognized option '--verbose'/);
});
